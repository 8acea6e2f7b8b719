package mockserver

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxURILength bounds the URIs resources/read and subscribe accept; longer
// ones are refused as invalid params rather than matched against templates.
const maxURILength = 8 << 10

// uriProblem says why s is not an absolute URI (RFC 3986 § 4.3), or returns
// "" when it is one. With iri set, raw non-ASCII characters are allowed as
// in RFC 3987; the server accepts them in requests but never lists them.
func uriProblem(s string, iri bool) string {
	if s == "" {
		return "the URI is empty"
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return "the URI has no scheme"
	}
	for i := colon + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return "the URI holds a control character"
		case c == ' ':
			return "the URI holds a raw space"
		case strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			return "the URI holds the character " + string(c) + ", which must be percent-encoded"
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "the URI holds a % that does not start a percent-encoded octet"
			}
		case c >= 0x80:
			if !iri {
				return "the URI holds a raw non-ASCII character, which must be percent-encoded"
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "the URI holds bytes that are not UTF-8"
			}
			i += size - 1
		}
	}
	return ""
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !alpha {
			return false
		}
		if !alpha && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return s != ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// suspiciousURI reports whether a syntactically valid URI tries directory
// traversal (a "." or ".." segment, also percent-encoded) or smuggles a
// percent-encoded control character such as %00. Such URIs are never
// matched against templates ("Servers MUST validate all resource URIs").
func suspiciousURI(s string) bool {
	rest := s[strings.IndexByte(s, ':')+1:]
	lower := strings.ToLower(rest)
	for i := 0; i+2 < len(lower); i++ {
		if lower[i] == '%' && (lower[i+1] == '0' || lower[i+1] == '1' || lower[i+1:i+3] == "7f") {
			return true
		}
	}
	decoded := strings.NewReplacer("%2e", ".", "%2f", "/", "%5c", "/").Replace(lower)
	decoded = strings.ReplaceAll(decoded, "\\", "/")
	if q := strings.IndexAny(decoded, "?#"); q >= 0 {
		decoded = decoded[:q]
	}
	for _, seg := range strings.Split(decoded, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// metaKey is the _meta key grammar (META-02): an optional prefix of
// dot-separated labels ending in "/", then a name that is empty or starts
// and ends with an alphanumeric.
var metaKey = regexp.MustCompile(`^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// reservedMetaKey reports whether a _meta key's prefix is reserved for the
// protocol under the 2025-06-18 rule (a label "modelcontextprotocol" or
// "mcp" followed by another label) or the 2025-11-25 rule (the second label
// is one of them) (META-03).
func reservedMetaKey(key string) bool {
	slash := strings.IndexByte(key, '/')
	if slash < 0 {
		return false
	}
	labels := strings.Split(key[:slash], ".")
	isMCP := func(l string) bool {
		l = strings.ToLower(l)
		return l == "modelcontextprotocol" || l == "mcp"
	}
	for i, l := range labels {
		if isMCP(l) && i+1 < len(labels) {
			return true
		}
	}
	return len(labels) >= 2 && isMCP(labels[1])
}
