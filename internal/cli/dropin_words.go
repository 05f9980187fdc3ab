package cli

import (
	"io"
	"regexp"
)

// A drop-in's user typed a sysbench or pgbench command line: candor's
// advice, written for 'candor run' (its verbs, --threads, --load), is
// reworded in the drop-in's own terms before it reaches them, on stderr
// and in the error that ends the command.

// rewording is one phrase of candor run's advice and the drop-in's words
// for it.
type rewording struct {
	re *regexp.Regexp
	to string
}

func rewordings(pairs ...string) []rewording {
	out := make([]rewording, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, rewording{regexp.MustCompile(pairs[i]), pairs[i+1]})
	}
	return out
}

// The phrases both drop-ins reword: a run of theirs never loads (the
// drop-in gives --load=never, the user did not), and their connection
// options stand for --target.
var commonWords = []string{
	`,? and --load=never`, ``,
	`, or use 'run --load always'`, ``,
	`\(same --target and options\)`, `(same connection options and options)`,
	`\(same --target\)`, `(same connection options)`,
}

// sysbenchWords are candor sysbench's: the test's prepare and cleanup.
var sysbenchWords = rewordings(append([]string{
	`run with --load auto to reload it, or '(candor cleanup [^']*)' and load again`, `run '$1', then prepare again`,
	`run with --load auto to reload it, or load the missing records`, `run the test's cleanup, then its prepare with the options of this run`,
	`'candor load sysbench/(\w+)'`, `'candor sysbench [your options] $1 prepare'`,
	`'candor cleanup sysbench/(\w+)'`, `'candor sysbench [your options] $1 cleanup'`,
	`candor load sysbench/(\w+)`, `candor sysbench [your options] $1 prepare`,
	`candor cleanup sysbench/(\w+)`, `candor sysbench [your options] $1 cleanup`,
	`candor run sysbench/(\w+)`, `candor sysbench [your options] $1 run`,
	`--load auto`, `prepare`,
}, commonWords...)...)

// pgbenchWords are candor pgbench's: -i loads (dropping candor's tables
// first), and pgbench's letters for candor run's options.
var pgbenchWords = rewordings(append([]string{
	`run with --load auto to reload it, or '[^']*' and load again`, `run 'candor pgbench -i -s N' again`,
	`run with --load auto to reload it, or load the missing records`, `run 'candor pgbench -i -s N' again`,
	`'candor load script/pgbench[^']*'`, `'candor pgbench -i -s N'`,
	`'candor cleanup script/pgbench[^']*'( with those options)?( first)?(, then load again| and load again)?`, `'candor pgbench -i -s N' (it drops candor's pgbench tables first)`,
	`, or candor load script/pgbench( -p scale=N)?\)`, `)`,
	`candor load script/pgbench( -p scale=N)?`, `candor pgbench -i -s N`,
	`candor run script/pgbench`, `candor pgbench`,
	`--load auto`, `-i`,
	`--threads\b`, `-c`,
	`--time\b`, `-T`,
	`--operations\b`, `-t`,
	`--rate\b`, `-R`,
	`--report-interval\b`, `-P`,
	`--loops\b`, `-j`,
}, commonWords...)...)

func reword(s string, words []rewording) string {
	for _, w := range words {
		s = w.re.ReplaceAllString(s, w.to)
	}
	return s
}

// rewordedError is err with its message in the drop-in's terms; its code
// and causes are err's.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }

func rewordError(err error, words []rewording) error {
	if err == nil {
		return nil
	}
	if msg := reword(err.Error(), words); msg != err.Error() {
		return &rewordedError{msg: msg, err: err}
	}
	return err
}

// rewordWriter rewords what each Write carries (candor writes a message in
// one call).
type rewordWriter struct {
	w     io.Writer
	words []rewording
}

func (r *rewordWriter) Write(p []byte) (int, error) {
	out := reword(string(p), r.words)
	if _, err := io.WriteString(r.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// dropinEnv is env with its stderr in the drop-in's terms.
func dropinEnv(env *Env, words []rewording) *Env {
	e := *env
	e.Stderr = &rewordWriter{w: env.Stderr, words: words}
	return &e
}
