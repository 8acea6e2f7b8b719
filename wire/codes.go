package wire

// JSON-RPC error codes the suite knows by name. The first five are JSON-RPC
// 2.0's own; the rest are the MCP spec's, each used only in the protocol
// versions named.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeResourceNotFound is "resource not found" up to 2025-11-25; it is
	// retired (and must not be sent) in 2026-07-28.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired exists in 2025-11-25 only.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch (2026-07-28) belongs to the HTTP transport.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability (2026-07-28) names the client capabilities
	// a request needs in data.requiredCapabilities.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion (2026-07-28) carries data.supported and
	// data.requested.
	CodeUnsupportedProtocolVersion = -32022
)

// CodeName returns the name of a known code, or "".
func CodeName(code int64) string {
	switch code {
	case CodeParseError:
		return "parse error"
	case CodeInvalidRequest:
		return "invalid request"
	case CodeMethodNotFound:
		return "method not found"
	case CodeInvalidParams:
		return "invalid params"
	case CodeInternalError:
		return "internal error"
	case CodeResourceNotFound:
		return "resource not found"
	case CodeURLElicitationRequired:
		return "URL elicitation required"
	case CodeHeaderMismatch:
		return "header mismatch"
	case CodeMissingClientCapability:
		return "missing required client capability"
	case CodeUnsupportedProtocolVersion:
		return "unsupported protocol version"
	}
	return ""
}
