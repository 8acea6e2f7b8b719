package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesListChangedChecks judge notifications/resources/list_changed
// (RES-LC-*).
func resourcesListChangedChecks() []*Check {
	return []*Check{
		{
			ID: "list-changed-only-if-declared", Requirement: "RES-LC-02", Area: "subscriptions",
			Description: "notifications/resources/list_changed only when listChanged is declared (2026-07-28: only on a stream that asked for it)",
			Needs:       []plan.Probe{plan.ProbeToolCall, plan.ProbeListen},
			Judge:       checkListChangedDeclared,
		},
		{
			ID: "list-changed-params", Requirement: "RES-LC-03", Area: "subscriptions",
			Description: "notifications/resources/list_changed has no params, or params that are an object (with _meta, if any, an object)",
			Needs:       []plan.Probe{plan.ProbeToolCall, plan.ProbeListen},
			Judge:       checkListChangedParams,
		},
	}
}

// listChangedOf yields the resource list_changed notifications of the
// processes, in well-formed traffic.
func listChangedOf(j *J, yield func(p *evidence.Process, e transcript.Entry, m *wire.Message)) {
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		if m.Method == "notifications/resources/list_changed" {
			yield(p, e, m)
		}
	})
}

func checkListChangedDeclared(j *J) Finding { return listChangedDeclared(j, "resources") }

func checkListChangedParams(j *J) Finding {
	t := &tally{}
	extra := 0
	listChangedOf(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		t.judged()
		if !m.Has("params") {
			return
		}
		params := wire.Object(m.Params)
		if params == nil {
			t.violate(At(p, e.Seq), "params is %s, want an object", describeType(m.Params))
			return
		}
		if meta, ok := params["_meta"]; ok && wire.Type(meta) != "object" {
			t.violate(At(p, e.Seq), "params._meta is %s, want an object", describeType(meta))
		}
		// The schema defines only _meta, but it does not close the object:
		// other members are legal (objects are open; RES-LC-03).
		for k := range params {
			if k != "_meta" {
				extra++
			}
		}
	})
	ok := fmt.Sprintf("%d list_changed notification(s) with params absent or an object", t.n)
	if extra > 0 {
		ok += fmt.Sprintf(" (%d member(s) besides _meta, allowed: objects are open)", extra)
	}
	return t.finding(ok, "the server sent no notifications/resources/list_changed (outside traffic the suite provoked)")
}
