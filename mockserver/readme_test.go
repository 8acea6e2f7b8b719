package mockserver

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMEFaultTable keeps the fault table in README.md in step with
// Faults(); run with -update to rewrite it.
func TestREADMEFaultTable(t *testing.T) {
	const begin, end = "<!-- faults:begin", "<!-- faults:end -->"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(begin))
	j := bytes.Index(readme, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %s … %s markers", begin, end)
	}
	i += bytes.IndexByte(readme[i:], '\n') + 1

	var table strings.Builder
	table.WriteString("| fault | layer | breaks | version | what it does |\n| --- | --- | --- | --- | --- |\n")
	for _, f := range Faults() {
		name := "`" + f.Name + "`"
		if faultIndex[f.Name].process {
			name += " (process)"
		}
		desc := strings.ReplaceAll(f.Description, "|", `\|`)
		breaks := strings.Join(append([]string{f.Requirement}, f.Also...), ", ")
		if f.Harness {
			breaks = "nothing (" + f.Requirement + ": exercises the harness)"
		}
		if f.Silent {
			breaks += " (silence: reported as not judged, never a fail)"
		}
		version := f.Version
		if version == "" {
			version = "newest"
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s |\n", name, f.Layer, breaks, version, desc)
	}
	want := append(append(append([]byte{}, readme[:i]...), table.String()...), readme[j:]...)
	if *update {
		if err := os.WriteFile("README.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("the fault table in README.md is out of date; run go test ./mockserver -run TestREADMEFaultTable -update")
	}
}

// TestREADMEVariantTable keeps the table of legal variations in README.md
// in step with Variants(); run with -update to rewrite it.
func TestREADMEVariantTable(t *testing.T) {
	const begin, end = "<!-- variants:begin", "<!-- variants:end -->"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(begin))
	j := bytes.Index(readme, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %s … %s markers", begin, end)
	}
	i += bytes.IndexByte(readme[i:], '\n') + 1

	var table strings.Builder
	table.WriteString("| variant | versions | breaks | what it does | why it is legal |\n| --- | --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, v := range Variants() {
		versions, breaks := "all", ""
		if v.Versions != nil {
			versions = strings.Join(v.Versions, ", ")
		}
		breaks = strings.Join(v.Breaks, ", ")
		fmt.Fprintf(&table, "| `%s` | %s | %s | %s | %s |\n", v.Name, versions, breaks, cell(v.Description), cell(variantIndex[v.Name].why))
	}
	want := append(append(append([]byte{}, readme[:i]...), table.String()...), readme[j:]...)
	if *update {
		if err := os.WriteFile("README.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("the variant table in README.md is out of date; run go test ./mockserver -run TestREADMEVariantTable -update")
	}
}

// TestREADMEHTTPTables keeps the tables of the HTTP transport's faults and
// variants in README.md in step with HTTPFaults() and HTTPVariants(); run
// with -update to rewrite them.
func TestREADMEHTTPTables(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var faults, variants strings.Builder
	faults.WriteString("| fault | breaks | version | what it does |\n| --- | --- | --- | --- |\n")
	for _, f := range HTTPFaults() {
		fmt.Fprintf(&faults, "| `%s` | %s | %s | %s |\n", f.Name, strings.Join(append([]string{f.Requirement}, f.Also...), ", "), cmpOr(f.Version, "newest"), cell(f.Description))
	}
	variants.WriteString("| variant | what it does | why it is legal |\n| --- | --- | --- |\n")
	for _, d := range httpVariantCatalogue {
		fmt.Fprintf(&variants, "| `%s` | %s | %s |\n", d.Name, cell(d.Description), cell(d.why))
	}
	want := readme
	for _, tb := range []struct{ begin, end, table string }{
		{"<!-- http-faults:begin", "<!-- http-faults:end -->", faults.String()},
		{"<!-- http-variants:begin", "<!-- http-variants:end -->", variants.String()},
	} {
		i := bytes.Index(want, []byte(tb.begin))
		j := bytes.Index(want, []byte(tb.end))
		if i < 0 || j < i {
			t.Fatalf("README.md lacks the %s … %s markers", tb.begin, tb.end)
		}
		i += bytes.IndexByte(want[i:], '\n') + 1
		want = append(append(append([]byte{}, want[:i]...), tb.table...), want[j:]...)
	}
	if *update {
		if err := os.WriteFile("README.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("the HTTP tables in README.md are out of date; run go test ./mockserver -run TestREADMEHTTPTables -update")
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
