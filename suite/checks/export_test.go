package checks

// SchemaCoverageChecks lists the checks the schema check leaves members to.
func SchemaCoverageChecks() []string {
	var out []string
	for _, c := range coverage {
		out = append(out, c.check)
	}
	return out
}
