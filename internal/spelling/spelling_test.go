package spelling

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"ping", "ping", 0},
		{"ping", "pong", 1},
		{"ping", "", 4},
		{"resource", "resources", 1},
		{"lеvel", "level", 1}, // a Cyrillic е is one rune, not two bytes
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"banner", "crlf", "ping-not-empty", "ping-wrong-id", "cursor-loop"}
	for _, tc := range []struct {
		name string
		n    int
		want []string
	}{
		{"baner", 3, []string{"banner"}},
		{"ping-not-emtpy", 3, []string{"ping-not-empty"}},
		{"ping", 3, []string{"ping-wrong-id", "ping-not-empty"}}, // no near spelling: names that contain it, shortest first
		{"ping", 1, []string{"ping-wrong-id"}},
		{"zzzzzz", 3, nil},
	} {
		if diff := cmp.Diff(tc.want, Nearest(tc.name, known, tc.n)); diff != "" {
			t.Errorf("Nearest(%q, %d) (-want +got):\n%s", tc.name, tc.n, diff)
		}
	}
}
