package cassandra

import (
	"errors"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// A schema statement is sent again only after the driver saw no answer;
// "already exists" is success only as the answer to a send again (the
// earlier send was applied), and an error on the first send is returned
// as it is (a table someone else created is not taken for candor's).
func TestSendSchema(t *testing.T) {
	exists := &gocql.RequestErrAlreadyExists{Table: "t"}
	other := errors.New("syntax error")
	for _, c := range []struct {
		name    string
		answers []error
		sends   int
		want    error // nil, or the error the result wraps
	}{
		{"answered", []error{nil}, 1, nil},
		{"timeout, then answered", []error{gocql.ErrTimeoutNoResponse, nil}, 2, nil},
		{"timeout, then already exists", []error{gocql.ErrTimeoutNoResponse, exists}, 2, nil},
		{"already exists at once", []error{exists}, 1, exists},
		{"another error", []error{other}, 1, other},
		{"timeout, then another error", []error{gocql.ErrTimeoutNoResponse, other}, 2, other},
		{"timeout every time", []error{gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse}, 3, gocql.ErrTimeoutNoResponse},
	} {
		sends := 0
		err := sendSchema(func() error {
			sends++
			if sends > len(c.answers) {
				t.Fatalf("%s: send %d, more than the %d the case allows", c.name, sends, len(c.answers))
			}
			return c.answers[sends-1]
		})
		if sends != c.sends {
			t.Errorf("%s: %d sends, want %d", c.name, sends, c.sends)
		}
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
