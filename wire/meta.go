package wire

import "encoding/json"

// Keys of the 2026-07-28 per-request and per-response _meta.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// SubscriptionID returns the _meta subscriptionId a notification (params)
// or a response (result) carries, raw, or nil.
func SubscriptionID(m *Message) json.RawMessage {
	src := m.Params
	if m.Kind() == KindResponse {
		src = m.Result
	}
	return Object(Object(src)["_meta"])[MetaSubscriptionID]
}

// EnvelopeVersion returns the protocol version a request names in its
// 2026-07-28 envelope (params._meta), if any.
func EnvelopeVersion(m *Message) (string, bool) {
	return String(Object(Object(m.Params)["_meta"])[MetaProtocolVersion])
}
