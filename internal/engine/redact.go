package engine

import (
	"regexp"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

// RedactArgs hides secrets in a command line before it is recorded: the
// password of a URL (redact), and the value of every key=value or
// --name=value whose key names a secret (SecretKey), wherever it stands:
// "-p db.passwd=...", "-pdb.passwd=...", "--property=jdbc.password=...",
// "--plan-param token=...", "--mysql-password=...".
func RedactArgs(args []string, redact func(string) string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = MaskSecretValue(a)
		if strings.Contains(a, "://") || strings.Contains(strings.ToLower(a), "password") {
			a = redact(a)
		}
		out[i] = a
	}
	return out
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

// RedactWords redacts every word of s that holds a URL or a password-like
// NAME=VALUE, keeping the rest of the text as it is.
func RedactWords(s string) string {
	return nonSpace.ReplaceAllStringFunc(s, func(w string) string {
		if strings.Contains(w, "://") || strings.Contains(w, "=") {
			return MaskSecretValue(target.Redact(w))
		}
		return w
	})
}
