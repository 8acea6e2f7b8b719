package suite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
)

// ListenObs is the subscriptions/listen probe of a 2026-07-28 session: two
// streams, one with a string id asking for updates of a resource, one with
// an integer id asking for list changes, then the first is cancelled.
type ListenObs struct {
	URI string
	// Filters are what each stream asked for.
	Filters [2]map[string]any
	Streams [2]*mockclient.Stream
	// CancelSeq is the transcript position of the cancellation of stream 0:
	// anything later was sent after the server could know of it.
	CancelSeq int
	// End is the transcript position when the probe finished.
	End int
}

// ModernObs holds what only a 2026-07-28 session observes.
type ModernObs struct {
	Listen *ListenObs
	// ListAfter is resources/list again after all other traffic (RES-CAP-03).
	ListAfter *mockclient.Exchange
}

// discoverModern runs the probes of the 2026-07-28 era after the lists and
// reads every session makes.
func (s *Session) discoverModern(ctx context.Context) {
	m := &ModernObs{}
	s.ModernObs = m
	m.Listen = s.listenProbe(ctx)
	if s.Caps.Resources {
		m.ListAfter = s.call(ctx, "resources/list", nil)
	}
}

func (s *Session) listenProbe(ctx context.Context) *ListenObs {
	l := &ListenObs{}
	if len(s.Reads) > 0 {
		l.URI = s.Reads[0].URI
	}
	l.Filters[0] = map[string]any{"resourceSubscriptions": []string{}}
	if l.URI != "" {
		l.Filters[0] = map[string]any{"resourceSubscriptions": []string{l.URI}}
	}
	l.Filters[1] = map[string]any{"resourcesListChanged": true}
	ids := [2]json.RawMessage{json.RawMessage(`"mcpconform-listen-1"`), s.Client.NewID()}
	for i := range l.Streams {
		params, err := s.Envelope.Wrap(map[string]any{"notifications": l.Filters[i]})
		if err != nil {
			return l
		}
		st, err := s.Client.Listen(ids[i], params)
		if err != nil {
			return l
		}
		l.Streams[i] = st
	}
	wait := min(s.Client.Timeout(), 2*time.Second)
	for _, st := range l.Streams {
		st.WaitFor("notifications/subscriptions/acknowledged", wait)
	}
	if l.URI != "" {
		// A read may be what changes the resource on some servers.
		s.call(ctx, "resources/read", map[string]any{"uri": l.URI})
		s.settle(ctx, l.Streams[0].Seq, 150*time.Millisecond, func(m *mockclient.Message) bool {
			return m.Method == "notifications/resources/updated" && l.Streams[0].Belongs(m)
		})
	}
	// Taken before the cancellation is written: anything recorded after the
	// cancel notification has a higher sequence number.
	l.CancelSeq = s.Client.Transcript().Len()
	_ = l.Streams[0].Cancel()
	if l.URI != "" {
		s.call(ctx, "resources/read", map[string]any{"uri": l.URI})
	}
	// Nothing may come for the cancelled stream; give a stray message time to show.
	s.settle(ctx, l.CancelSeq, 150*time.Millisecond, func(m *mockclient.Message) bool {
		return l.Streams[0].Belongs(m)
	})
	_ = l.Streams[1].Cancel()
	l.End = s.Client.Transcript().Len()
	return l
}
