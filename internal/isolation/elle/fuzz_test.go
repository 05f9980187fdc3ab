package elle

import (
	"bytes"
	"testing"
)

// FuzzHistory: any input either fails to read with an error or reads
// into a history the checker checks (or refuses) without panicking, and
// a history read back from its own writing checks the same.
func FuzzHistory(f *testing.F) {
	f.Add([]byte(`{"id":1,"outcome":"ok","ops":[["append",1,1],["r",1,[1]]]}` + "\n" + `{"id":2,"outcome":"ok","ops":[["r",1,[]],["append",1,2]]}`))
	f.Add([]byte(`{"id":1,"outcome":"fail","ops":[["append",1,1]]}` + "\n" + `{"id":2,"outcome":"unknown","ops":[["r",1,null]]}`))
	f.Add([]byte(`{"id":1,"outcome":"ok","ops":[["r",1,[2,1,2]],["r",2,[9]]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil {
			return
		}
		rep, err := Check(h)
		var buf bytes.Buffer
		if werr := WriteHistory(&buf, h); werr != nil {
			t.Fatalf("writing a history read: %v", werr)
		}
		h2, rerr := ReadHistory(&buf)
		if rerr != nil {
			t.Fatalf("reading a history written: %v", rerr)
		}
		rep2, err2 := Check(h2)
		if (err == nil) != (err2 == nil) || err == nil && len(rep.Counts) != len(rep2.Counts) {
			t.Fatalf("the history written checks differently: %v %v / %v %v", err, rep, err2, rep2)
		}
	})
}
