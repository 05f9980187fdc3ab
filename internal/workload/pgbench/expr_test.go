package pgbench

import (
	"strings"
	"testing"
)

// evalString parses and evaluates one \set expression for a client whose
// generator is seeded like pgbench's client 0 with --random-seed=seed.
func evalString(t *testing.T, src string, seed uint64) (value, error) {
	t.Helper()
	syms := newSymbols()
	e, msg, pos := parseExpr(src, syms)
	if msg != "" {
		t.Fatalf("parse %q: %s at %d", src, msg, pos)
	}
	w := &Workload{syms: syms}
	base := newPRNG(seed)
	c := &client{w: w, vars: make([]value, len(syms.names)+1), rng: newPRNG(base.next())}
	w.defaultSeed = base.next()
	return c.eval(e)
}

// Reference values: pgbench 15.18's own output (debug() and \gset, see
// TestReferenceVectorsFromPgbench), and pgbench's TAP tests (T).
func TestExpressions(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"hash(10, 5432)", "-5817877081768721676"},                                        // T
		{"hash_fnv1a(10, 5432)", "-7793829335365542153"},                                  // T
		{"hash_murmur2(10, 5432)", "-5817877081768721676"},                                // hash is murmur2
		{"permute(0, 2, 5431)", "0"},                                                      // T
		{"permute(0, 2, 5433)", "1"},                                                      // T
		{"permute(9223372036854775796, 9223372036854775797, 5432)", "520382784483822430"}, // T
		{"1 + 2 * 3", "7"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"-7 % 3", "-1"},
		{"7 % -1", "0"},
		{"7.0 / 2", "3.5"},
		{"1 / 3.0", "0.333333333333333"},
		{"5 & 3 | 8", "9"},
		{"5 # 1", "4"},
		{"~5", "-6"},
		{"1 << 4", "16"},
		{"-16 >> 2", "-4"},
		{"1 < 2", "true"},
		{"2 > 1 and 1 >= 1", "true"},
		{"3 <> 3 or 3 != 4", "true"},
		{"not true", "false"},
		{"not null", "NULL"},        // pgbench's NULL in, NULL out
		{"true and null", "NULL"},   // its lazy AND and OR
		{"null and false", "NULL"},  //
		{"false and null", "false"}, //
		{"true or null", "true"},    //
		{"false or null", "NULL"},   //
		{"null is true", "false"},   // IS compares, NULL included
		{"null is null", "true"},
		{"1 is not null", "true"},
		{"1 isnull", "false"},
		{"null notnull", "false"},
		{"true is true", "true"},
		{"null + 1", "NULL"},
		{"case when 1 > 2 then 10 when 2 > 1 then 20 else 30 end", "20"},
		{"case when false then 1 end", "NULL"},
		{"abs(-5)", "5"},
		{"abs(-5.5)", "5.5"},
		{"greatest(1, 5.0, 3)", "5"},
		{"least(4, 2, 9)", "2"},
		{"int(5.5)", "6"},
		{"int(4.5)", "4"},
		{"double(3)", "3"},
		{"pi()", "3.14159265358979"},
		{"sqrt(2)", "1.4142135623731"},
		{"exp(1)", "2.71828182845905"},
		{"ln(10)", "2.30258509299405"},
		{"pow(2, 10)", "1024"},
		{"power(2, 0.5)", "1.4142135623731"},
		{"mod(10, 3)", "1"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"1e3", "1000"},
		{".5 + 1.", "1.5"},
		{"1 = 1.0", "true"},
		{"RANDOM(1, 1)", "1"},
	}
	for _, c := range cases {
		v, err := evalString(t, c.src, 1)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if v.String() != c.want {
			t.Errorf("%s = %s, want %s", c.src, v, c.want)
		}
	}
}

// With --random-seed=5432 and -t 1, client 0 of pgbench 15 draws these
// (pgbench's TAP test 001_pgbench_with_server.pl).
func TestRandomSeedVectors(t *testing.T) {
	syms := newSymbols()
	base := newPRNG(5432)
	c := &client{w: &Workload{syms: syms}, rng: newPRNG(base.next())}
	for _, tc := range []struct {
		src  string
		want int64
	}{
		{"random(10, 19)", 17},
		{"random_exponential(100, 199, 10.0)", 104},
		{"random_gaussian(1000, 1999, 10.0)", 1498},
	} {
		e, msg, _ := parseExpr(tc.src, syms)
		if msg != "" {
			t.Fatal(msg)
		}
		v, err := c.eval(e)
		if err != nil || v.i != tc.want {
			t.Errorf("%s = %v (%v), want %d", tc.src, v, err, tc.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"1 / 0", "division by zero"},
		{"1 % 0", "division by zero"},
		{"9223372036854775807 + 1", "bigint add out of range"},
		{"-9223372036854775808 - 1", "bigint sub out of range"},
		{"4611686018427387904 * 2", "bigint mul out of range"},
		{"1 and true", "cannot coerce int to boolean"},
		{"random(5, 1)", "empty range given to random"},
		{"random_gaussian(1, 10, 1.0)", "gaussian parameter must be at least"},
		{"random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range"},
		{"random_exponential(1, 10, 0.0)", "exponential parameter must be greater than zero"},
		{"permute(1, 0)", "permute size parameter must be greater than zero"},
		{"int(1e30)", "double to int overflow"},
		{":nope + 1", "undefined variable \"nope\""},
	} {
		_, err := evalString(t, c.src, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"random(1)", "unexpected number of arguments (random)"},
		{"nosuch(1)", "unexpected function name"},
		{"1 +", "syntax error"},
		{"(1", "syntax error"},
		{"1 2", "syntax error"},
		{"9223372036854775808", "bigint constant overflow"},
		{"1 $ 2", "unexpected character"},
	} {
		_, msg, _ := parseExpr(c.src, newSymbols())
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.src, msg, c.want)
		}
	}
}

// BenchmarkEvalRandom evaluates select-only's \set (random(1, 100000 *
// :scale)), once a transaction on the client's path.
func BenchmarkEvalRandom(b *testing.B) {
	syms := newSymbols()
	e, msg, _ := parseExpr("random(1, 100000 * :scale)", syms)
	if msg != "" {
		b.Fatal(msg)
	}
	c := &client{w: &Workload{syms: syms}, vars: make([]value, len(syms.names)+1), rng: newPRNG(1)}
	c.vars[syms.lookup("scale")] = intVal(10)
	for b.Loop() {
		if v, err := c.eval(e); err != nil || v.k != kInt {
			b.Fatal(v, err)
		}
	}
}
