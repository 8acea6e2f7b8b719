package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// classMeaning says what each class means, for the legends of the fleet
// reports.
var classMeaning = map[Class]string{
	ClassConformant:    "nothing failed",
	ClassNonconformant: "a check failed on an established session",
	ClassIncomplete:    "too little ran to judge (cut short, a check in error, or no session established)",
	ClassSetupError:    "the command, the environment or the setup failed before any MCP message: not a violation",
}

// WriteFleetMarkdown writes the fleet report as Markdown: the count of
// each class with its exit code, the shards it holds, a table of the
// targets (class, why, durations), what was inferred rather than observed
// under a heading of its own, then the matrix of checks by targets with a
// section per target listing what did not pass.
func WriteFleetMarkdown(w io.Writer, f *Fleet) error {
	return commandSafe(w, func(w io.Writer) error { return writeFleetMarkdown(w, f) })
}

func writeFleetMarkdown(w io.Writer, f *Fleet) error {
	bw := bufio.NewWriter(w)
	s := f.Summary
	fmt.Fprintf(bw, "# mcpconform fleet report: %s\n\n", strings.ToUpper(string(s.Class)))
	fmt.Fprintln(bw, "| class | targets | exit code | meaning |")
	fmt.Fprintln(bw, "| --- | ---: | ---: | --- |")
	for _, c := range []Class{ClassConformant, ClassNonconformant, ClassIncomplete, ClassSetupError} {
		fmt.Fprintf(bw, "| %s | %d | %d | %s |\n", c, s.count(c), c.ExitCode(), classMeaning[c])
	}
	fmt.Fprintf(bw, "| **fleet** | **%d** | **%d** | the most severe class of its targets |\n\n", s.Targets, s.Class.ExitCode())
	tool := "mcpconform"
	if f.Tool.Version != "" {
		tool += " " + mdText(f.Tool.Version)
	}
	fmt.Fprintf(bw, "Run by %s, started %s, took %s s.", tool, f.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), seconds(f.DurationMs))
	if f.Shard != "" {
		fmt.Fprintf(bw, " Shard %s of the target list.", mdText(f.Shard))
	}
	if len(f.Merged) > 0 {
		fmt.Fprintf(bw, " Merged from shards %s.", mdText(strings.Join(f.Merged, ", ")))
	}
	fmt.Fprint(bw, "\n\n")
	if len(f.Missing) > 0 {
		fmt.Fprintf(bw, "> **Missing shards:** %s: their targets are not in this report, which is therefore incomplete.\n\n", mdText(strings.Join(f.Missing, ", ")))
	}
	for _, n := range f.Notes {
		fmt.Fprintf(bw, "> %s\n\n", mdText(n))
	}

	fmt.Fprintln(bw, "## Targets")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| target | class | why | run | setup |")
	fmt.Fprintln(bw, "| --- | --- | --- | ---: | ---: |")
	for _, t := range f.Targets {
		setup := ""
		if t.Setup != nil {
			setup = seconds(t.Setup.DurationMs) + " s"
		}
		run := ""
		if t.DurationMs > 0 {
			run = seconds(t.DurationMs) + " s"
		}
		fmt.Fprintf(bw, "| [%s](#%s) | %s | %s | %s | %s |\n", mdText(t.ID), Anchor(t.ID), t.Class, mdCell(truncate(t.Reason, 300)), run, setup)
	}
	fmt.Fprintln(bw)
	var inferred []string
	for _, t := range f.Targets {
		for _, inf := range t.Inferred {
			inferred = append(inferred, fmt.Sprintf("- %s: %s", mdText(t.ID), mdText(inf)))
		}
	}
	if len(inferred) > 0 {
		fmt.Fprintf(bw, "### Inferred, not observed\n\n%s\n\n", strings.Join(inferred, "\n"))
	}
	if f.Matrix != nil {
		m := *f.Matrix
		m.Columns = append([]MatrixColumn(nil), f.Matrix.Columns...)
		for i := range m.Columns {
			if i < len(f.Targets) && f.Targets[i].ID == m.Columns[i].Title {
				m.Columns[i].Intro = fleetIntro(&f.Targets[i])
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return WriteMatrixMarkdown(w, &m)
	}
	return bw.Flush()
}

// fleetIntro is a target's introduction in the matrix: its class, why,
// what was inferred, its notes, and where its own reports are.
func fleetIntro(t *FleetTarget) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s\n\n", t.Class, mdText(t.Reason))
	if t.Report != nil {
		if cmd := strings.Join(t.Report.Target.Command, " "); cmd != "" {
			fmt.Fprintf(&b, "Command: %s", mdCode(truncateBytes(cmd, docTranscriptBytes)))
			if si := serverInfoText(t.Report.Target.ServerInfo); si != "" {
				fmt.Fprintf(&b, "; server: %s", mdText(truncateBytes(si, docTranscriptBytes)))
			}
			b.WriteString(".\n\n")
		}
	}
	for _, inf := range t.Inferred {
		fmt.Fprintf(&b, "*Inferred, not observed:* %s\n\n", mdText(inf))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "Note: %s\n\n", mdText(n))
	}
	if t.Setup != nil && t.Setup.Error != "" && len(t.Setup.OutputTail) > 0 {
		b.WriteString("The setup's output ended with:\n\n")
		var fence strings.Builder
		mdFence(&fence, "text", truncateBytes(strings.Join(t.Setup.OutputTail, "\n"), docValueBytes))
		b.WriteString(fence.String())
	}
	if t.Dir != "" {
		fmt.Fprintf(&b, "Its own reports: %s.\n\n", mdCode(t.Dir+"/"+MarkdownFile))
	}
	return b.String()
}
