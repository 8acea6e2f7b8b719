package mockclient

import (
	"context"
	"encoding/json"
	"time"
)

// CallIDWithin is CallID with its own deadline: the first request to a
// process that was never initialized also waits for the process to start.
func (c *Client) CallIDWithin(ctx context.Context, timeout time.Duration, id json.RawMessage, method string, params any) *Exchange {
	return c.Do(ctx, Request{ID: id, Method: method, Params: params, Timeout: timeout})
}
