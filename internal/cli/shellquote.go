package cli

import (
	"strings"
)

// shellLine renders a command line that a POSIX shell reads back as the
// same words: a word with characters the shell treats specially is
// single-quoted ('&' in a CQL URL, quotes and $ in a fault's command). A
// word that refers to an environment variable of unset (a plan target's
// ${PG_URL}, shown as written) is double-quoted instead, so that pasting
// the line expands it; its other $, `, " and \ are escaped.
func shellLine(words []string, unset []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellWord(w, unset)
	}
	return strings.Join(out, " ")
}

func shellWord(w string, unset []string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return w
	}
	for _, name := range unset {
		ref := "${" + name + "}"
		if strings.Contains(w, ref) {
			parts := strings.Split(w, ref)
			for j, p := range parts {
				parts[j] = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", "$", `\$`).Replace(p)
			}
			return `"` + strings.Join(parts, ref) + `"`
		}
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
