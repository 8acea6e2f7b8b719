package checks

import (
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/transcript"
)

const clientSchemaCheckID = "client-schema-valid"

// clientSchemaChecks judge every message a client wrote against the
// published JSON schema of the version its spawn used (SCHEMA-01).
func clientSchemaChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: clientSchemaCheckID, Requirement: "SCHEMA-01", Area: "schema",
			Description: "every message the client writes keeps its definition in the version's published JSON schema: its requests and notifications their method's, its answers to the server's requests the result type of their method; a message the recording mock wrote that breaks it is a harness error, except in the scenarios of a faulty server",
			Judge:       judgeClientSchema,
		},
	}
}

func judgeClientSchema(j *ClientJ) Finding {
	var procs []*evidence.Process
	j.each(func(v *spawnView) { procs = append(procs, v.p) })
	return schemaSide{
		party: "the client", judged: transcript.Send,
		version: func(*evidence.Process, int) string { return j.Version },
		skip:    func(*evidence.Process, transcript.Entry) bool { return false },
		elsewhere: func() map[[2]int]string {
			out := map[[2]int]string{}
			for _, c := range ClientChecks() {
				if c.ID == clientSchemaCheckID {
					continue
				}
				if res, f := c.judge(j); f != nil && res.Verdict == reports.Fail {
					addWheres(out, c.ID, f.Wheres)
				}
			}
			return out
		},
		// A faulty server breaks the rules on purpose; resilience is
		// judged apart from conformance.
		harnessOnPurpose: j.Scenario.Fault != "",
	}.judge(procs)
}
