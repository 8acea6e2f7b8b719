package listing

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/wire"
)

// WriteFaults prints the mock's fault catalogue as `mcpconform mock
// --list-faults` shows it: each fault with the requirements it breaks and
// their level in the version it is judged under (those of the HTTP
// transport, layer http, after the others).
func WriteFaults(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tLAYER\tBREAKS\tLEVEL\tVERSION\tWHAT IT DOES")
	for _, f := range slices.Concat(mockserver.Faults(), mockserver.HTTPFaults()) {
		v := cmp.Or(f.Version, wire.Newest)
		breaks, level := strings.Join(append([]string{f.Requirement}, f.Also...), ","), "-"
		if r, ok := catalog.Get(f.Requirement); ok {
			if st, ok := r.In(v); ok {
				level = st.Level
			}
		}
		if f.Harness {
			breaks, level = "-", "harness"
		}
		if f.Silent {
			level = "silence (not judged)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Layer, breaks, level, v, f.Description)
	}
	return tw.Flush()
}

// WriteVariants prints the mock's legal variations as `mcpconform mock
// --list-variants` shows them (those of the HTTP transport, http-*, after
// the others).
func WriteVariants(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIANT\tVERSIONS\tBREAKS\tWHAT IT DOES")
	for _, v := range slices.Concat(mockserver.Variants(), mockserver.HTTPVariants()) {
		versions, breaks := "all", "-"
		if v.Versions != nil {
			versions = strings.Join(v.Versions, ",")
		}
		if len(v.Breaks) > 0 {
			breaks = strings.Join(v.Breaks, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Name, versions, breaks, v.Description)
	}
	return tw.Flush()
}
