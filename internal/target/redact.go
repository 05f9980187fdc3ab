package target

import (
	"net/url"
	"regexp"
	"strings"
)

// redactedPassword replaces every password candor prints or stores.
const redactedPassword = "xxxxx"

var secretParam = regexp.MustCompile(`(?i)((?:password|passwd|pwd|sslpassword|token|secret)=)[^&\s]*`)

// Redact returns the URL with the password in its user info and any
// password-like query parameter replaced by "xxxxx". Unparseable input is
// redacted textually so a malformed URL never leaks a secret into a message.
func Redact(raw string) string {
	raw = secretParam.ReplaceAllString(raw, "${1}"+redactedPassword)
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		// Fall back to a textual rule: scheme://user:secret@host.
		if i := strings.Index(raw, "://"); i >= 0 {
			rest := raw[i+3:]
			if at := strings.LastIndex(rest, "@"); at >= 0 {
				if colon := strings.Index(rest[:at], ":"); colon >= 0 {
					return raw[:i+3] + rest[:colon+1] + redactedPassword + rest[at:]
				}
			}
		}
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), redactedPassword)
	}
	return u.String()
}

// PasswordOf extracts the user-info password of a URL textually, for
// scrubbing it from messages about a URL that may not parse; "" when there
// is none.
func PasswordOf(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}
