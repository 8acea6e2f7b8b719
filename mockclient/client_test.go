package mockclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// TestUnreadableAnswerEndsTheWait: an answer nested past wire.MaxDepth is
// not decoded, but its top-level id ends the wait of its request at
// once, recorded as unreadable, not as silence past a deadline.
func TestUnreadableAnswerEndsTheWait(t *testing.T) {
	c := startHelper(t, "answer", Options{Timeout: time.Minute})
	x := c.Call(context.Background(), "deep", nil)
	if !errors.Is(x.Err, ErrUnreadable) || x.Response != nil {
		t.Fatalf("got err %v and response %v, want ErrUnreadable and none", x.Err, x.Response)
	}
	found := false
	for _, e := range c.Transcript().Entries() {
		if e.Event != nil && e.Event.NoResponse != nil && e.Event.NoResponse.Reason == transcript.ReasonUnreadable {
			found = true
		}
	}
	if !found {
		t.Error("no unreadable no-response event in the transcript")
	}
	if x := c.Call(context.Background(), "ping", nil); !x.OK() {
		t.Errorf("the next request: %v", x.Err)
	}
}
