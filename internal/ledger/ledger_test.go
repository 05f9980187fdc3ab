package ledger

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestIDRoundTrip(t *testing.T) {
	for _, c := range []struct {
		worker int
		seq    int64
	}{{0, 0}, {1, 0}, {7, 123456}, {1<<23 - 1, 1<<40 - 1}} {
		id := ID(c.worker, c.seq)
		if id < 0 {
			t.Errorf("ID(%d, %d) = %d, negative", c.worker, c.seq, id)
		}
		w, s := SplitID(id)
		if w != c.worker || s != c.seq {
			t.Errorf("SplitID(ID(%d, %d)) = %d, %d", c.worker, c.seq, w, s)
		}
	}
	if ID(1, 0) <= ID(0, 1<<40-1) {
		t.Error("ids of different workers overlap")
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	start := time.Unix(1_700_000_000, 0)
	var want []Record
	for w := range 3 {
		lw, err := Create(dir, w, start, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5000 { // more than one buffer
			r := Record{ID: ID(w, int64(i)), Start: start.UnixNano() + int64(i)*1000, End: start.UnixNano() + int64(i)*1000 + 500,
				Worker: uint32(w), Outcome: Outcome(1 + i%3)}
			if err := lw.Append(r.ID, r.Start, r.End, r.Outcome); err != nil {
				t.Fatal(err)
			}
			want = append(want, r)
		}
		if err := lw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, info, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Files != 3 || info.Records != 15000 || info.TruncatedTail != 0 {
		t.Errorf("info = %+v", info)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("records read back differ from those written")
	}
	f, _ := os.Open(filepath.Join(dir, FileName(1)))
	h, _, _, err := Read(f)
	f.Close()
	if err != nil || h.Worker != 1 || h.RunStart != start.UnixNano() {
		t.Errorf("header = %+v, %v", h, err)
	}
	// A ledger is never overwritten.
	if _, err := Create(dir, 1, start, 0); err == nil {
		t.Error("Create over an existing ledger succeeded")
	}
}

// A crash of candor: what was handed to the kernel is readable, a torn
// last record is ignored and counted, unflushed records are the only loss.
func TestCrashLeavesFlushedRecords(t *testing.T) {
	dir := t.TempDir()
	start := time.Unix(1_700_000_000, 0)
	lw, err := Create(dir, 0, start, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ms := int64(time.Millisecond)
	// Records at 10 ms steps: the one at 100 ms triggers a write of the
	// first ten; the four after it stay in the buffer.
	for i := int64(1); i <= 14; i++ {
		if err := lw.Append(i, start.UnixNano()+i*10*ms-ms, start.UnixNano()+i*10*ms, Acknowledged); err != nil {
			t.Fatal(err)
		}
	}
	// No Close: the process "dies". Append half a record, as a write cut
	// short would.
	path := filepath.Join(dir, FileName(0))
	fh, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	fh.Write(make([]byte, 13))
	fh.Close()
	got, info, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 || info.TruncatedTail != 13 {
		t.Errorf("after a crash: %d records, %d bytes ignored; want 10 and 13", len(got), info.TruncatedTail)
	}
	lw.f.Close()
}

func TestReadErrors(t *testing.T) {
	if _, _, _, err := Read(bytes.NewReader([]byte("PGDMP not a ledger at all, 32 bytes long"))); !errors.Is(err, ErrNotLedger) {
		t.Errorf("foreign file: %v, want ErrNotLedger", err)
	}
	if _, _, err := ReadDir(t.TempDir()); err == nil {
		t.Error("ReadDir of an empty directory succeeded")
	}
}

// BenchmarkAppend is the per-write client cost of the ledger (the goal is
// at most 2 µs of CPU per write): one record appended by one worker,
// including the amortised write(2) of full buffers.
func BenchmarkAppend(b *testing.B) {
	lw, err := Create(b.TempDir(), 0, time.Now(), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer lw.Close()
	now := time.Now().UnixNano()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t := now + int64(i)*1000 // 1 ms of writes per 1,000 appends
		if err := lw.Append(int64(i), t, t+500, Acknowledged); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRead: any bytes are either refused as not a ledger or read into
// whole records, the rest counted as a truncated tail; never a panic.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	buf.WriteString(magic)
	buf.Write(make([]byte, headerSize-len(magic)+recordSize+5))
	f.Add(buf.Bytes())
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, recs, info, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if int64(headerSize+len(recs)*recordSize)+info.TruncatedTail != int64(len(data)) || info.TruncatedTail >= recordSize {
			t.Fatalf("%d bytes read as %d records and a %d-byte tail", len(data), len(recs), info.TruncatedTail)
		}
	})
}

// TestCrashOfWriterProcess: a process appending to a ledger is SIGKILLed.
// What is left reads back whole, from the first write on with no gap: a
// crash loses only the unflushed tail, at most FlushInterval's worth (here
// bounded loosely, for a loaded machine).
func TestCrashOfWriterProcess(t *testing.T) {
	if dir := os.Getenv("CANDOR_LEDGER_CRASH_DIR"); dir != "" {
		crashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("-short: skipping the crash test")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashOfWriterProcess$")
	cmd.Env = append(os.Environ(), "CANDOR_LEDGER_CRASH_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has handed records to the kernel, let it run a
	// little longer, then kill it.
	path := filepath.Join(dir, FileName(0))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, err := os.Stat(path); err == nil && st.Size() > headerSize {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child wrote no record in 30 s")
		}
	}
	time.Sleep(300 * time.Millisecond)
	killedAt := time.Now()
	cmd.Process.Kill()
	cmd.Wait()

	recs, info, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if _, seq := SplitID(r.ID); seq != int64(i) || r.Outcome != Acknowledged {
			t.Fatalf("record %d: id %d (seq %d), outcome %v: want seq %d, a contiguous prefix", i, r.ID, seq, r.Outcome, i)
		}
	}
	last := time.Unix(0, recs[len(recs)-1].End)
	t.Logf("%d records survived, last one %v before the kill, %d bytes of a torn record", len(recs), killedAt.Sub(last), info.TruncatedTail)
	if gap := killedAt.Sub(last); gap > 2*time.Second {
		t.Errorf("the last surviving record is %v older than the kill: more than the flush interval was lost", gap)
	}
}

// crashChild appends a record every 100 µs or so until killed.
func crashChild(dir string) {
	lw, err := Create(dir, 0, time.Now(), 0)
	if err != nil {
		os.Exit(3)
	}
	for seq := int64(0); ; seq++ {
		start := time.Now().UnixNano()
		time.Sleep(100 * time.Microsecond)
		if err := lw.Append(ID(0, seq), start, time.Now().UnixNano(), Acknowledged); err != nil {
			os.Exit(4)
		}
	}
}
