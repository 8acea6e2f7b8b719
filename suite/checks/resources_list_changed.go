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

// listChangedDeclared judges notifications/<kind>/list_changed (kind is
// resources, tools or prompts): in a legacy session only after the server
// declared <kind>.listChanged, in a 2026-07-28 one only on a listen stream
// that asked for <kind>ListChanged.
func listChangedDeclared(j *J, kind string) Finding {
	t := &tally{}
	method := "notifications/" + kind + "/list_changed"
	for _, p := range j.Processes {
		listChanged := false
		listens := map[string]bool{} // listen ids that asked for <kind>ListChanged
		for _, x := range p.Exchanges() {
			if res := x.Result(); res != nil && (x.Method == "initialize" || x.Method == "server/discover") {
				listChanged = string(wire.Object(wire.Object(res["capabilities"])[kind])["listChanged"]) == "true"
			}
			if x.Method == "subscriptions/listen" && x.Request != nil {
				if string(wire.Object(wire.Object(x.Request.Params)["notifications"])[kind+"ListChanged"]) == "true" {
					listens[wire.IDKey(x.ID)] = true
				}
			}
		}
		eachMessage(&J{Processes: []*evidence.Process{p}}, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
			if m.Method != method {
				return
			}
			t.judged()
			switch era, _ := p.EraAt(e.Seq); {
			case era == wire.EraModern:
				if id := wire.SubscriptionID(m); id == nil || !listens[wire.IDKey(id)] {
					t.violate(At(p, e.Seq), "%s outside a stream that asked for %sListChanged", method, kind)
				}
			case !listChanged:
				t.violate(At(p, e.Seq), "%s, but the server does not declare %s.listChanged", method, kind)
			}
		})
	}
	return t.finding(fmt.Sprintf("%d list_changed notification(s), each where the client can expect one", t.n), fmt.Sprintf("the server sent no %s (outside traffic the suite provoked)", method))
}

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
