package reports

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// reasonMax bounds a short reason, in runes.
const reasonMax = 160

var (
	// Go's log package prefixes lines with a date and time (gosdk's
	// stderr, quoted in messages).
	logTime = regexp.MustCompile(`\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? `)
	// JSON-escaped newlines inside quoted server messages (zod errors).
	escapedNewline = regexp.MustCompile(`(\\n)+\s*`)
	space          = regexp.MustCompile(`\s+`)
)

// ShortReason turns a result message into a reason that reads on one line
// and is the same on every run: the nonce and log timestamps are removed,
// white space is collapsed and the text is clipped.
func ShortReason(msg, nonce string) string {
	if nonce != "" {
		msg = strings.ReplaceAll(msg, nonce, "{nonce}")
	}
	msg = logTime.ReplaceAllString(msg, "")
	msg = escapedNewline.ReplaceAllString(msg, " ")
	msg = strings.TrimSpace(space.ReplaceAllString(msg, " "))
	if utf8.RuneCountInString(msg) <= reasonMax {
		return msg
	}
	r := []rune(msg)[:reasonMax]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > reasonMax/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + " …"
}
