package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// clientMetaChecks judge the progress tokens a client puts in its
// requests (META-*).
func clientMetaChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-progress-token-type", Requirement: "META-10", Area: "meta",
			Description: "every progressToken the client sends is a string or an integer",
			Judge:       checkClientProgressTokenType,
		},
		{
			ID: "client-progress-tokens-unique", Requirement: "META-11", Area: "meta",
			Description: "no progressToken is used by two of the client's requests while both are active",
			Judge:       checkClientProgressTokensUnique,
		},
	}
}

// progressToken returns a request's _meta.progressToken, if any.
func progressToken(m *wire.Message) (json.RawMessage, bool) {
	tok, ok := meta(m)["progressToken"]
	return tok, ok
}

func checkClientProgressTokenType(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, r := range v.requests {
			tok, ok := progressToken(r.msg)
			if !ok {
				continue
			}
			t.judged()
			if typ := wire.Type(tok); typ != "string" && typ != "integer" {
				t.violate(v.at(r.seq), "%s (id %s) has the progressToken %s", r.msg.Method, clipJSON(r.msg.ID, 40), describeType(tok))
			}
		}
	})
	return t.finding(fmt.Sprintf("every progress token is a string or an integer (%d)", t.n), "the client sent no progress token")
}

// active reports whether a request is still in progress at seq: sent
// before it, and neither answered nor cancelled before it.
func (s *sentMsg) active(seq int) bool {
	return s.seq < seq && (s.resp == nil || s.respSeq > seq) && (s.cancelled == nil || s.cancelled.seq > seq)
}

func checkClientProgressTokensUnique(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for i, r := range v.requests {
			tok, ok := progressToken(r.msg)
			if !ok {
				continue
			}
			t.judged()
			for _, e := range v.requests[:i] {
				if other, ok := progressToken(e.msg); ok && wire.IDKey(other) == wire.IDKey(tok) && e.active(r.seq) {
					t.violate(v.at(r.seq), "%s (id %s) uses the progressToken %s of %s (id %s), which was still active", r.msg.Method, clipJSON(r.msg.ID, 40), clipJSON(tok, 40), e.msg.Method, clipJSON(e.msg.ID, 40))
					break
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("no progress token was shared by active requests (%d)", t.n), "the client sent no progress token")
}
