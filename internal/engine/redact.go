package engine

import (
	"regexp"
	"slices"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

// RedactArgs hides secrets in a command line before it is recorded: the
// password of a URL (redact), and the value of every key=value or
// --name=value whose key names a secret (SecretKey), wherever it stands:
// "-p db.passwd=...", "-pdb.passwd=...", "--property=jdbc.password=...",
// "--plan-param token=...", "--mysql-password=...".
//
// An argument of several words (a --fault's command) has each word redacted
// as RedactWords does, and the password of every URL among the arguments
// is masked wherever else it appears verbatim (TargetPasswords).
func RedactArgs(args []string, redact func(string) string) []string {
	secrets := TargetPasswords(args)
	out := make([]string, len(args))
	for i, a := range args {
		a = MaskSecretValue(a)
		if strings.Contains(a, "://") || strings.Contains(strings.ToLower(a), "password") {
			a = redact(a)
		}
		if strings.ContainsAny(a, " \t\n") {
			a = RedactWords(a)
		}
		out[i] = MaskSecrets(a, secrets)
	}
	return out
}

// TargetPasswords are the passwords in the user info of the URLs among
// args ("postgres://u:PW@h/db", "--target=mysql://u:PW@h/db"), for
// MaskSecrets.
func TargetPasswords(args []string) []string {
	var out []string
	for _, a := range args {
		if i := strings.Index(a, "://"); i >= 0 {
			// The URL is the word holding "://", after any --flag=.
			start := strings.LastIndexAny(a[:i], "= \t") + 1
			end := len(a)
			if j := strings.IndexAny(a[i:], " \t\n"); j >= 0 {
				end = i + j
			}
			if pw := target.PasswordOf(a[start:end]); pw != "" && pw != MaskedValue && !slices.Contains(out, pw) {
				out = append(out, pw)
			}
		}
	}
	return out
}

// MaskSecrets replaces each secret in s (a target's password in a fault's
// command, a note, an error) with MaskedValue. A secret of MinVerbatimSecret
// characters or more is replaced wherever it appears verbatim: masking a
// harmless substring costs little, recording a password a lot. A shorter one
// ("mysql://u:p@h/db") is replaced only where it stands as a password
// (maskAsPassword): masking every "p" would garble the text ("dial tcxxxxx")
// and show the password's length.
func MaskSecrets(s string, secrets []string) string {
	for _, pw := range secrets {
		switch {
		case pw == "" || pw == MaskedValue:
		case len(pw) >= MinVerbatimSecret:
			s = strings.ReplaceAll(s, pw, MaskedValue)
		default:
			s = maskAsPassword(s, pw)
		}
	}
	return s
}

// MinVerbatimSecret is the length (in bytes) from which a target's password
// is masked wherever it appears: 4, as a shorter string is common in
// unrelated text (a "p" in "tcp", "ab" in "table").
const MinVerbatimSecret = 4

// maskAsPassword replaces pw where it stands as a password: in user info
// ("u:PW@h", a Go DSN's "u:PW@tcp("), after -p ("-pPW", "-p PW"), and as
// the value of a name holding passw, passwd or pwd ("--password=PW",
// "--password PW", "PGPASSWORD=PW", "password=PW"), ending its word.
func maskAsPassword(s, pw string) string {
	q := regexp.QuoteMeta(pw)
	end := `($|[\s'";&,)])`
	res := []*regexp.Regexp{
		regexp.MustCompile(`(:)` + q + `(@)`),
		regexp.MustCompile(`((?:^|[\s'"])-p\s*|(?i:passw(?:or)?d?|pwd)(?:=|\s+))` + q + end),
	}
	for _, re := range res {
		// A match takes the character after it, which may begin the next
		// match ("-pp -pp"): replace again until nothing changes (a
		// replacement removes pw, so a few passes do).
		for i := 0; i < 8; i++ {
			n := re.ReplaceAllString(s, "${1}"+MaskedValue+"${2}")
			if n == s {
				break
			}
			s = n
		}
	}
	return s
}

// RedactText is RedactWords, then MaskSecrets: how a fault's command,
// output and error are recorded and printed.
func RedactText(s string, secrets []string) string {
	return MaskSecrets(RedactWords(s), secrets)
}

// MaskedValue replaces a secret's value, as target.Redact does a URL's password.
const MaskedValue = "xxxxx"

// MaskSecretValue masks everything after the first '=' whose left side
// names a secret; the text before it is kept, so the record still shows
// which property was set.
func MaskSecretValue(a string) string {
	from := 0
	for {
		eq := strings.IndexByte(a[from:], '=')
		if eq < 0 {
			return a
		}
		eq += from
		if SecretKey(a[from:eq]) {
			return a[:eq+1] + MaskedValue
		}
		from = eq + 1
	}
}

// secretWords are the words that make a property or option name a secret's
// (db.passwd, jdbc.password, pgsql-password, s3.SecretKey, auth.token,
// azurecosmos.primaryKey, ...), compared without case, dots, dashes or
// underscores. Masking a harmless value by mistake costs nothing; recording
// a password does.
var secretWords = []string{"passw", "passwd", "pwd", "secret", "token", "credential", "apikey", "accesskey", "privatekey", "primarykey", "masterkey", "authkey", "sessionkey"}

// SecretKey reports whether a key (or flag name) names a secret.
func SecretKey(key string) bool {
	k := strings.ToLower(key)
	k = strings.NewReplacer(".", "", "-", "", "_", "").Replace(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, "pass")
}

// RedactParam hides a plan parameter's secret: the password of a target
// URL, the whole value of a key naming a secret.
func RedactParam(key, value string) string {
	switch {
	case key == "target":
		return target.Redact(value)
	case SecretKey(key):
		return MaskedValue
	}
	return value
}

var nonSpace = regexp.MustCompile(`\S+`)

// goDSN is the user:password@ of a Go MySQL driver DSN
// ("u:PW@tcp(h:3306)/db", "u:PW@/db", "u:PW@unix(/tmp/s)/db").
var goDSN = regexp.MustCompile(`^([^\s:@/=]*):[^\s@]+@([a-z]*\(|/)`)

// RedactWords redacts every word of s that holds a URL or a password-like
// NAME=VALUE (PGPASSWORD=PW, --password=PW), a Go MySQL DSN's password and
// the password of a client's -pPW (mysql, mariadb, mysqladmin), keeping the
// rest of the text as it is. -p5432 is masked too: a harmless value masked
// by mistake costs nothing.
func RedactWords(s string) string {
	return nonSpace.ReplaceAllStringFunc(s, func(w string) string {
		// A word may be quoted in a shell command: 'u:PW@tcp(h)/db'.
		q := strings.TrimLeft(w, `'"`)
		lead := w[:len(w)-len(q)]
		switch {
		case goDSN.MatchString(q):
			return lead + goDSN.ReplaceAllString(q, "${1}:"+MaskedValue+"@${2}")
		case strings.HasPrefix(q, "-p") && len(q) > 2 && !strings.Contains(q, "="):
			return lead + "-p" + MaskedValue
		case strings.Contains(w, "://") || strings.Contains(w, "="):
			return MaskSecretValue(target.Redact(w))
		}
		return w
	})
}
