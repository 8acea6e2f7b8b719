package suite

import "slices"

// Protocol versions of the handshake era, oldest first.
var LegacyVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Newest is the newest protocol version the client offers by default.
const Newest = "2025-11-25"

// Modern is the protocol version of the era without a handshake: every
// request carries its version and capabilities in params._meta.
const Modern = "2026-07-28"

// AllVersions lists every version the suite can judge, oldest first.
var AllVersions = append(append([]string(nil), LegacyVersions...), Modern)

// KnownVersion reports whether v is a protocol version the suite can judge.
func KnownVersion(v string) bool { return slices.Contains(AllVersions, v) }

// IsLegacy reports whether v is a version of the handshake era.
func IsLegacy(v string) bool { return slices.Contains(LegacyVersions, v) }

// atLeast reports whether version v is a or newer (dates compare as strings).
func atLeast(v, a string) bool { return v >= a }

// SpecURL turns a spec section ("server/resources#error-handling") into a
// link to that section of the given version's specification.
func SpecURL(version, section string) string {
	if section == "" {
		return ""
	}
	if version == "" {
		version = Newest
	}
	return "https://modelcontextprotocol.io/specification/" + version + "/" + section
}

// since lists the versions from v on, for gating checks.
func since(v string) []string {
	var out []string
	for _, x := range AllVersions {
		if x >= v {
			out = append(out, x)
		}
	}
	return out
}
