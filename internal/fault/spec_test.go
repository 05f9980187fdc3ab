package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string // canonical String() of the result
		err  string // substring of the error; "" for success
	}{
		// a command takes the rest of the text, spaces included
		{"run", "at=20s run=scripts/pg-cluster.sh kill /tmp/c 0", "at=20s run=scripts/pg-cluster.sh kill /tmp/c 0", ""},
		// keys in any order before run=; canonical order on output
		{"pause", "node=1 for=5s net=pause at=20s", "at=20s for=5s net=pause node=1", ""},
		{"latency", "at=1m net=latency delay=50ms jitter=5ms for=10s node=all", "at=1m0s for=10s net=latency node=all delay=50ms jitter=5ms", ""},
		{"bandwidth", "at=2s for=1s net=bandwidth rate=1.5MB/s node=0", "at=2s for=1s net=bandwidth node=0 rate=1500000B/s", ""},
		{"bandwidth kb lower case", "at=2s for=1s net=bandwidth rate=500kb/s node=0", "at=2s for=1s net=bandwidth node=0 rate=500000B/s", ""},
		{"reset", "at=3s net=reset node=0", "at=3s net=reset node=0", ""},
		// extra spaces and tabs between pairs are fine
		{"spaces", "  at=1s \t net=reset   node=0 ", "at=1s net=reset node=0", ""},
		{"empty", "   ", "", "empty fault"},
		{"not kv", "at=1s pause", "", `"pause" is not KEY=VALUE`},
		{"unknown key", "at=1s net=pause nod=1 for=1s", "", `unknown key "nod"`},
		{"duplicate", "at=1s at=2s run=true", "", "at= given twice"},
		{"no unit", "at=20 run=true", "", "at=20 has no unit: write e.g. at=20s"},
		{"bad duration", "at=soon run=true", "", "at=soon is not a duration"},
		{"negative", "at=-1s run=true", "", "at=-1s is negative"},
		{"unknown net", "at=1s net=partition node=0 for=1s", "", "net=partition is not a network fault"},
		{"bad node", "at=1s net=pause node=first for=1s", "", "node=first is not a node number"},
		{"bad rate", "at=1s for=1s net=bandwidth node=0 rate=fast", "", "rate=fast is not a bandwidth"},
		{"empty value", "at= run=true", "", "at= is empty"},
		{"empty run", "at=1s run=", "", "run= is empty"},
		// every problem of one fault at once
		{"several", "at=x nod=1 net=partition", "", "at=x is not a duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", c.in, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if got := f.String(); got != c.want {
				t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, c.want)
			}
		})
	}
	// "several" reports all three problems, not the first only
	_, err := Parse("at=x nod=1 net=partition")
	for _, want := range []string{"at=x", `unknown key "nod"`, "net=partition"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestValidate(t *testing.T) {
	lim := Limits{RunLength: 60 * time.Second, Nodes: 2}
	cases := []struct {
		name string
		in   string
		errs []string // substrings, one per expected problem, in order
	}{
		{"run ok", "at=20s run=true", nil},
		{"pause ok", "at=20s for=5s net=pause node=1", nil},
		{"all nodes", "at=20s for=5s net=pause node=all", nil},
		{"latency ok", "at=0s for=60s net=latency delay=10ms jitter=2ms node=0", nil},
		{"reset without for", "at=59s net=reset node=0", nil},
		{"missing at", "run=true", []string{"at= is missing"}},
		{"neither", "at=1s", []string{"neither run=, sql= nor net="}},
		{"both", "at=1s net=pause node=0 for=1s run=true", []string{"run= and net= together"}},
		// run= faults take no network keys
		{"run with for and node", "at=1s for=2s node=0 run=true", []string{"for= does not apply", "node= does not apply"}},
		{"unknown node", "at=1s for=1s net=pause node=2", []string{"node=2 does not exist: the run has 2 target(s), nodes 0 to 1"}},
		{"missing node", "at=1s for=1s net=pause", []string{"node= is missing"}},
		{"pause without for", "at=1s net=pause node=0", []string{"for= is missing"}},
		{"zero for", "at=1s for=0s net=pause node=0", []string{"lasts more than 0s"}},
		{"latency without delay", "at=1s for=1s net=latency node=0", []string{"delay= is missing"}},
		{"sub-ms delay", "at=1s for=1s net=latency node=0 delay=500us", []string{"whole milliseconds"}},
		{"jitter above delay", "at=1s for=1s net=latency node=0 delay=5ms jitter=6ms", []string{"at most delay=5ms"}},
		{"rate on pause", "at=1s for=1s net=pause node=0 rate=1MB/s", []string{"rate= applies only to net=bandwidth"}},
		{"bandwidth without rate", "at=1s for=1s net=bandwidth node=0", []string{"rate= is missing"}},
		{"rate too low", "at=1s for=1s net=bandwidth node=0 rate=10B/s", []string{"below the smallest limit"}},
		{"beyond run", "at=60s run=true", []string{"at=1m0s is not within the run (1m0s long)"}},
		{"ends after run", "at=50s for=20s net=pause node=0", []string{"ends after the run"}},
		// several problems in one fault, all reported
		{"many", "at=70s for=1s net=latency node=5 rate=1MB/s", []string{"node=5 does not exist", "rate= applies only", "delay= is missing", "not within the run"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			errs := f.Validate(lim)
			if len(errs) != len(c.errs) {
				t.Fatalf("Validate(%q) = %v, want %d problem(s) %q", c.in, errs, len(c.errs), c.errs)
			}
			for i, want := range c.errs {
				if !strings.Contains(errs[i].Error(), want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, errs[i], want)
				}
			}
		})
	}
}

func TestValidateLimits(t *testing.T) {
	// No run length (a run bounded by operations): times are not checked.
	f, _ := Parse("at=1h run=true")
	if errs := f.Validate(Limits{}); len(errs) != 0 {
		t.Errorf("at=1h with no run length: %v, want no problem", errs)
	}
	// No proxy: a network fault names a node that cannot exist.
	for _, s := range []string{"at=1s for=1s net=pause node=0", "at=1s for=1s net=pause node=all"} {
		f, _ = Parse(s)
		if errs := f.Validate(Limits{}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "no target reached over TCP") {
			t.Errorf("%s without a proxy: %v", s, errs)
		}
	}
}

func TestScheduleValidate(t *testing.T) {
	s, err := ParseAll([]string{"at=10s run=true", "at=99s run=true", "at=1s for=1s net=pause node=7"})
	if err != nil {
		t.Fatal(err)
	}
	errs := s.Validate(Limits{RunLength: 30 * time.Second, Nodes: 1})
	if len(errs) != 2 {
		t.Fatalf("got %v, want 2 problems", errs)
	}
	// each problem names the fault it belongs to
	if !strings.Contains(errs[0].Error(), "fault 2 (at=99s run=true)") || !strings.Contains(errs[1].Error(), "fault 3 (") {
		t.Errorf("problems do not name their fault: %v", errs)
	}
	if !s.HasNet() {
		t.Error("HasNet() = false with a net=pause fault")
	}
	// ParseAll reports every malformed text
	_, err = ParseAll([]string{"at=x run=true", "bogus", "at=1s run=true"})
	if err == nil || !strings.Contains(err.Error(), "at=x") || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("ParseAll error = %v, want both bad faults named", err)
	}
}

func TestParseMap(t *testing.T) {
	// a plan entry: keys in any order, the command with spaces as is
	f, err := ParseMap(map[string]string{"run": "scripts/pg-cluster.sh kill /tmp/c 0", "at": "20s"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Text != "at=20s run=scripts/pg-cluster.sh kill /tmp/c 0" || f.Command != "scripts/pg-cluster.sh kill /tmp/c 0" {
		t.Errorf("ParseMap: text %q, command %q", f.Text, f.Command)
	}
	if errs := f.Validate(Limits{RunLength: time.Minute}); len(errs) > 0 {
		t.Errorf("Validate: %v", errs)
	}
	// unknown keys are reported, every one
	_, err = ParseMap(map[string]string{"at": "1s", "run": "true", "when": "x", "after": "y"})
	if err == nil || !strings.Contains(err.Error(), `unknown key "after"`) || !strings.Contains(err.Error(), `unknown key "when"`) {
		t.Errorf("ParseMap with unknown keys: %v", err)
	}
}

func TestParseOnError(t *testing.T) {
	for in, want := range map[string]OnError{"": OnErrorStop, "stop": OnErrorStop, "continue": OnErrorContinue} {
		got, err := ParseOnError(in)
		if err != nil || got != want {
			t.Errorf("ParseOnError(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseOnError("ignore"); err == nil || !strings.Contains(err.Error(), "stop") {
		t.Errorf("ParseOnError(ignore) = %v, want an error naming the choices", err)
	}
}

// FuzzParse: Parse never panics; what it accepts, Validate checks without
// panicking, and the canonical form parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"at=20s run=kill 1", "at=20s for=5s net=pause node=1", "at=1s for=1s net=latency delay=5ms jitter=1ms node=all",
		"at=1s for=1s net=bandwidth rate=2MB/s node=0", "at=0s net=reset node=0", "at==", "run=", "=", "at=1s\tnode=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		_ = p.Validate(Limits{RunLength: time.Minute, Nodes: 3})
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", p.String(), s, err)
		}
		if q.String() != p.String() {
			t.Fatalf("canonical form changes on reparse: %q then %q", p.String(), q.String())
		}
	})
}
