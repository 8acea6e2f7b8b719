package runner

import (
	"bytes"
	"os"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/reports"
)

// SaveEvidence writes the evidence of a run to path, as the file Judge
// reads again, with the values of Config.RedactEnv taken out.
func (r *Runner) SaveEvidence(run *evidence.Run, path string) error {
	if len(r.secrets) == 0 {
		return run.SaveFile(path)
	}
	var b bytes.Buffer
	if err := run.Save(&b); err != nil {
		return err
	}
	data, err := redact.JSON(b.Bytes(), r.secrets)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// redacted is the report and outcome of a run without the secrets: what
// every report, the console included, is written from.
func redacted(rep *reports.Report, out Outcome, secrets []redact.Secret) (*reports.Report, Outcome, error) {
	if len(secrets) == 0 {
		return rep, out, nil
	}
	var clean reports.Report
	if err := redact.Value(rep, secrets, &clean); err != nil {
		return nil, out, err
	}
	for i, n := range out.Notes {
		out.Notes[i] = redact.String(n, secrets)
	}
	return &clean, out, nil
}
