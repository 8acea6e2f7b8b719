package wire

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
	"unsafe"
)

// AbsoluteURI checks s against the grammar of RFC 3986 § 3 for an absolute
// URI with an optional fragment (scheme ":" hier-part ["?" query] ["#"
// fragment]). It accepts every form the grammar does — percent-encoded
// reg-names, IPv6 and IPvFuture literals, empty paths, opaque paths such as
// urn:isbn:0 — and nothing else: raw spaces, controls, non-ASCII bytes (an
// IRI, RFC 3987), characters outside the grammar and malformed
// percent-encodings are errors naming the first offending byte.
func AbsoluteURI(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= 0x20 || c == 0x7f:
			return fmt.Errorf("URI %q has a raw space or control character at byte %d", clip(s), i)
		case c >= 0x80:
			return fmt.Errorf("URI %q has a raw non-ASCII byte at %d (an IRI, not a URI)", clip(s), i)
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("URI %q has a %% at byte %d not followed by two hex digits", clip(s), i)
			}
		}
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !validScheme(s[:colon]) {
		return fmt.Errorf("URI %q has no scheme (letters, digits, +, -, . starting with a letter, then a colon)", clip(s))
	}
	rest := s[colon+1:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if j := firstNotIn(rest[i+1:], pcharSet+"/?"); j >= 0 {
			return badChar(s, colon+1+i+1+j, "fragment")
		}
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if j := firstNotIn(rest[i+1:], pcharSet+"/?"); j >= 0 {
			return badChar(s, colon+1+i+1+j, "query")
		}
		rest = rest[:i]
	}
	at := colon + 1 // the offset of rest in s
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		end := strings.IndexByte(auth, '/')
		if end < 0 {
			end = len(auth)
		}
		if err := checkAuthority(s, at+2, auth[:end]); err != nil {
			return err
		}
		rest, at = auth[end:], at+2+end
	}
	if j := firstNotIn(rest, pcharSet+"/"); j >= 0 {
		return badChar(s, at+j, "path")
	}
	return nil
}

const (
	unreservedSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	subDelimsSet  = "!$&'()*+,;="
	// pcharSet holds the characters of pchar; "%" stands for a
	// pct-encoded triple, whose digits were checked already.
	pcharSet = unreservedSet + subDelimsSet + ":@%"
)

func checkAuthority(s string, at int, auth string) error {
	host := auth
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		if j := firstNotIn(auth[:i], unreservedSet+subDelimsSet+":%"); j >= 0 {
			return badChar(s, at+j, "userinfo")
		}
		host, at = auth[i+1:], at+i+1
	}
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return fmt.Errorf("URI %q has an IP literal without a closing ]", clip(s))
		}
		if err := checkIPLiteral(host[1:end]); err != nil {
			return fmt.Errorf("URI %q: %v", clip(s), err)
		}
		port := host[end+1:]
		if port != "" && (port[0] != ':' || firstNotIn(port[1:], "0123456789") >= 0) {
			return fmt.Errorf("URI %q has %q after its IP literal, not a port", clip(s), clip(port))
		}
		return nil
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		if j := firstNotIn(host[i+1:], "0123456789"); j >= 0 {
			return badChar(s, at+i+1+j, "port")
		}
		host = host[:i]
	}
	if j := firstNotIn(host, unreservedSet+subDelimsSet+"%"); j >= 0 {
		return badChar(s, at+j, "host")
	}
	return nil
}

// checkIPLiteral checks what stands between [ and ]: an IPv6 address (RFC
// 3986 has no zone identifiers) or an IPvFuture.
func checkIPLiteral(lit string) error {
	if len(lit) > 0 && (lit[0] == 'v' || lit[0] == 'V') {
		dot := strings.IndexByte(lit, '.')
		if dot < 2 || firstNotIn(lit[1:dot], "0123456789abcdefABCDEF") >= 0 ||
			dot == len(lit)-1 || firstNotIn(lit[dot+1:], unreservedSet+subDelimsSet+":") >= 0 {
			return fmt.Errorf("[%s] is not an IPvFuture literal (v, hex digits, a dot, then characters)", lit)
		}
		return nil
	}
	a, err := netip.ParseAddr(lit)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return fmt.Errorf("[%s] is not an IPv6 address", lit)
	}
	return nil
}

func validScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func badChar(s string, i int, part string) error {
	return fmt.Errorf("URI %q has the character %q in its %s, which RFC 3986 does not allow unencoded", clip(s), s[i], part)
}

// firstNotIn returns the index of the first byte of s not in set, or -1.
func firstNotIn(s, set string) int {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return i
		}
	}
	return -1
}

func isAlpha(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// StrictBase64 checks s against RFC 4648 § 4: the standard alphabet,
// padding, a length that is a multiple of four, and no whitespace or line
// breaks.
func StrictBase64(s string) error {
	if len(s)%4 != 0 {
		return fmt.Errorf("base64 length %d is not a multiple of 4", len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
		default:
			return fmt.Errorf("byte %d of the base64 text is %q, outside the standard alphabet", i, c)
		}
	}
	if _, err := decodedLen(base64.StdEncoding.Strict(), s); err != nil {
		return fmt.Errorf("not strict base64: %v", err)
	}
	return nil
}

// Base64Len returns the length of what base64.StdEncoding.DecodeString
// decodes from s, or its error, without holding the decoded bytes.
func Base64Len(s string) (int, error) {
	return decodedLen(base64.StdEncoding, s)
}

// decodedLen is len(enc.DecodeString(s)) and its error. A long text is
// decoded a chunk at a time into a small buffer (a 50 MB blob judged
// costs no 37 MB of decoded bytes); when a chunk fails, or the text has
// what a chunk cannot judge alone (line breaks the decoder skips, padding
// before its end), it is decoded whole for the exact error.
func decodedLen(enc *base64.Encoding, s string) (int, error) {
	const chunk = 16 << 10 // a multiple of 4
	if len(s) < 4*chunk || len(s)%4 != 0 || strings.ContainsAny(s, "\r\n") ||
		strings.Contains(strings.TrimRight(s, "="), "=") || len(s)-len(strings.TrimRight(s, "=")) > 2 {
		b, err := enc.DecodeString(s)
		return len(b), err
	}
	var buf [chunk / 4 * 3]byte
	n := 0
	for off := 0; off < len(s); off += chunk {
		part := s[off:min(len(s), off+chunk)]
		m, err := enc.Decode(buf[:], unsafe.Slice(unsafe.StringData(part), len(part)))
		if err != nil {
			b, err := enc.DecodeString(s)
			return len(b), err
		}
		n += m
	}
	return n, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
