package reports

import (
	"strings"
	"testing"
)

func TestShortReason(t *testing.T) {
	for _, tc := range []struct{ in, nonce, want string }{
		{"got error for mcpconform-missing://ab12cd/x", "ab12cd", "got error for mcpconform-missing://{nonce}/x"},
		{"(stderr: gosdk: 2026/11/30 15:17:55 empty batch)", "", "(stderr: gosdk: empty batch)"},
		{`message "[\n  {\n    \"expected\""`, "", `message "[ { \"expected\""`},
		{strings.Repeat("word ", 60), "", strings.TrimSpace(strings.Repeat("word ", 32)) + " …"},
	} {
		if got := ShortReason(tc.in, tc.nonce); got != tc.want {
			t.Errorf("ShortReason(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
