package mockclient

import (
	"context"
	"encoding/json"
	"time"
)

// CallIDWithin is CallID with its own deadline: the first request to a
// process that was never initialized also waits for the process to start.
func (c *Client) CallIDWithin(ctx context.Context, timeout time.Duration, id json.RawMessage, method string, params any) *Exchange {
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return &Exchange{ID: id, Method: method, Err: err}
	}
	return c.callRaw(ctx, id, method, line, timeout)
}
