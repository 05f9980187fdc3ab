package target

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckTableName(t *testing.T) {
	ok := []string{
		"usertable",             // YCSB default
		"sbtest1",               // sysbench
		"_t",                    // leading underscore
		strings.Repeat("a", 63), // PostgreSQL's longest identifier
	}
	for _, n := range ok {
		if err := CheckTableName(n); err != nil {
			t.Errorf("CheckTableName(%q) = %v", n, err)
		}
	}
	bad := []string{
		"",                      // empty
		"1t",                    // leading digit
		"a-b",                   // punctuation
		"a b",                   // space
		"x;DROP TABLE y",        // injection
		`"Quoted"`,              // quoting
		"public.usertable",      // schema-qualified
		strings.Repeat("a", 64), // would be truncated by PostgreSQL
		"candor_owned_tables",   // the marker table itself
		"CANDOR_OWNED_TABLES",   // in any case
	}
	for _, n := range bad {
		if err := CheckTableName(n); !errors.Is(err, ErrBadTableName) {
			t.Errorf("CheckTableName(%q) = %v, want ErrBadTableName", n, err)
		}
	}
}

func TestRedactError(t *testing.T) {
	base := errors.New("dial failed for password=hunter2")
	wrapped := fmt.Errorf("connect: %w", base)
	r := RedactError(wrapped, "", "hunter2")
	if strings.Contains(r.Error(), "hunter2") || !strings.Contains(r.Error(), "password=xxxxx") {
		t.Errorf("RedactError: %q", r.Error())
	}
	if !errors.Is(r, base) {
		t.Error("RedactError broke the error chain")
	}
	if RedactError(wrapped, "absent") != wrapped {
		t.Error("RedactError should return err unchanged when no secret occurs")
	}
	if RedactError(nil, "x") != nil {
		t.Error("RedactError(nil) != nil")
	}
}
