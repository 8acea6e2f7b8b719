package mockclient

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// maxReplyQueue bounds the answers to server-to-client requests waiting to
// be written: a server flooding requests gets no answer past it.
const maxReplyQueue = 256

// noteDeclared keeps the client capabilities an initialize line declares.
func (c *Client) noteDeclared(method string, line []byte) {
	if method != "initialize" {
		return
	}
	var req struct {
		Params struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) == nil {
		if req.Params.Capabilities == nil {
			req.Params.Capabilities = map[string]json.RawMessage{}
		}
		c.mu.Lock()
		c.declared = req.Params.Capabilities
		c.mu.Unlock()
	}
}

// answerServerRequest answers what a server may ask of a client: ping gets
// the empty result (with its resultType when no initialize was sent, as
// 2026-07-28 wants); anything else is a method this client does not offer
// (it declares no client capabilities). Answers are queued for one writer;
// past maxReplyQueue they are dropped, and the drop is recorded once.
func (c *Client) answerServerRequest(m *wire.Message) {
	c.mu.Lock()
	declared := c.declared
	c.mu.Unlock()
	result := func(r string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + r + `}`) }
	fail := func(code int, msg string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`)
	}
	var line []byte
	switch {
	case m.Method == "ping" && declared == nil:
		// No initialize was sent: a 2026-07-28 exchange, whose every
		// result names its type.
		line = result(`{"resultType":"complete"}`)
	case m.Method == "ping":
		line = result(`{}`)
	case m.Method == "roots/list" && declared["roots"] != nil:
		line = result(`{"roots":[]}`)
	case m.Method == "elicitation/create" && declared["elicitation"] != nil:
		line = result(`{"action":"decline"}`)
	case m.Method == "sampling/createMessage" && declared["sampling"] != nil:
		// As a user who rejects the request (the spec's own example).
		line = fail(-1, "the conformance client declines sampling requests")
	default:
		line = fail(wire.CodeMethodNotFound, "method not found")
	}
	select {
	case c.replies <- line:
	default:
		c.mu.Lock()
		c.dropped++
		first := c.dropped == 1
		c.mu.Unlock()
		if first {
			c.Budget(transcript.Budget{What: "answers to server requests", Limit: fmt.Sprintf("%d waiting to be written; later requests were not answered", maxReplyQueue)})
		}
	}
}

// replyLoop writes the queued answers to server requests, in order, until
// the server is gone.
func (c *Client) replyLoop() {
	for {
		select {
		case line := <-c.replies:
			if _, err := c.write("", line); err != nil {
				return
			}
		case <-c.conn.Done():
			return
		}
	}
}
