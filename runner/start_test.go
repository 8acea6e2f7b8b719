package runner

import "testing"

// TestNamesWord: the start-up hint names a variable only when the
// server's stderr names it as a word, not inside an identifier.
func TestNamesWord(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{"fatal: API_KEY is not set", "API_KEY", true},
		{"API_KEY", "API_KEY", true},
		{"missing $API_KEY.", "API_KEY", true},
		{"at Module._load (node:internal)", "_", false},
		{"MY_API_KEY_2 is unset", "API_KEY", false},
		{"HOME_DIR and HOME", "HOME", true},
	} {
		if got := namesWord(tc.text, tc.name); got != tc.want {
			t.Errorf("namesWord(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}
