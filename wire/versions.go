package wire

import "slices"

// Protocol versions the suite knows, oldest first.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// LegacyVersions are the versions of the handshake era (initialize, then
// notifications/initialized), oldest first.
var LegacyVersions = []string{V20241105, V20250326, V20250618, V20251125}

// Newest is the newest handshake-era version.
const Newest = V20251125

// Modern is the version of the era without a handshake: every request
// carries its version and capabilities in params._meta.
const Modern = V20260728

// AllVersions lists every version the suite can judge, oldest first.
var AllVersions = []string{V20241105, V20250326, V20250618, V20251125, V20260728}

// KnownVersion reports whether v is a version the suite can judge.
func KnownVersion(v string) bool { return slices.Contains(AllVersions, v) }

// IsLegacy reports whether v is a version of the handshake era.
func IsLegacy(v string) bool { return slices.Contains(LegacyVersions, v) }

// AtLeast reports whether version v is a or newer (the dates compare as
// strings).
func AtLeast(v, a string) bool { return v >= a }

// Since lists the known versions from v on.
func Since(v string) []string {
	var out []string
	for _, x := range AllVersions {
		if x >= v {
			out = append(out, x)
		}
	}
	return out
}

// Era is the protocol era a process is speaking at a point of its
// transcript.
type Era string

// The eras. EraNone is a process that has neither completed initialize nor
// answered a request in the 2026-07-28 envelope.
const (
	EraNone   Era = ""
	EraLegacy Era = "legacy"
	EraModern Era = "modern"
)

// EraOf returns the era of a known version.
func EraOf(v string) Era {
	switch {
	case v == Modern:
		return EraModern
	case IsLegacy(v):
		return EraLegacy
	}
	return EraNone
}
