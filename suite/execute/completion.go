package execute

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// maxCompletions bounds how many completion/complete requests discovery
// sends: one per prompt argument and per template variable.
const maxCompletions = 60

// completeArguments asks for completions of every argument of every listed
// prompt (ref/prompt) and every variable of every listed template
// (ref/resource), with the empty value: completion only suggests, so it is
// safe to call. It runs when the server declares completions, and in
// 2024-11-05, whose completion/complete has no capability: there a first
// refusal ends it, as the server may not offer completion at all. A
// server that declares none from 2025-03-26 gets one request, to see how
// it refuses.
func (l *live) completeArguments(ctx context.Context, prompts []json.RawMessage) {
	declared := l.s.Caps().Has("completions")
	if !declared && l.s.Version != wire.V20241105 {
		if wire.AtLeast(l.s.Version, wire.V20250326) && l.x.needs(plan.ProbeCompleteUndeclared) {
			l.call(ctx, plan.ProbeCompleteUndeclared.Tag(), "completion/complete", completeParams("ref/prompt", "name", "mcpconform-probe", "value"))
		}
		return
	}
	if !l.x.needs(plan.ProbeComplete) {
		return
	}
	type target struct{ kind, key, ref, arg string }
	var targets []target
	// several are the prompts and templates of two or more arguments, for
	// a completion given the others as context.
	var several [][]target
	for _, it := range prompts {
		m := wire.Object(it)
		name, ok := wire.String(m["name"])
		if !ok {
			continue
		}
		args, _ := wire.Array(m["arguments"])
		var of []target
		for _, a := range args {
			if an, ok := wire.String(wire.Object(a)["name"]); ok {
				of = append(of, target{"ref/prompt", "name", name, an})
			}
		}
		targets = append(targets, of...)
		if len(of) >= 2 {
			several = append(several, of)
		}
	}
	for _, it := range l.s.Templates().Items {
		tpl, ok := wire.String(wire.Object(it)["uriTemplate"])
		if !ok {
			continue
		}
		var of []target
		for _, v := range evidence.TemplateVars(tpl) {
			of = append(of, target{"ref/resource", "uri", tpl, v})
		}
		targets = append(targets, of...)
		if len(of) >= 2 {
			several = append(several, of)
		}
	}
	// first holds the first value offered for each argument: a value a
	// user could have picked, given as resolved in the context probe.
	first := map[target]string{}
	for i, t := range targets {
		if i == maxCompletions {
			l.p.c.Budget(transcript.Budget{What: "completions of arguments", Limit: fmt.Sprintf("the first %d were asked for", maxCompletions)})
			return
		}
		if !l.p.alive() || ctx.Err() != nil {
			return
		}
		x := l.call(ctx, plan.ProbeComplete.Tag(), "completion/complete", completeParams(t.kind, t.key, t.ref, t.arg))
		if !declared && (x.Response == nil || !x.Response.Has("result")) {
			return
		}
		if x.OK() {
			if values, _ := wire.Array(wire.Object(wire.Object(x.Response.Result)["completion"])["values"]); len(values) > 0 {
				first[t], _ = wire.String(values[0])
			}
		}
	}
	if !wire.AtLeast(l.s.Version, wire.V20250618) || !l.x.needs(plan.ProbeCompleteContext) {
		return
	}
	// One prompt and one template of two or more arguments: the last
	// argument completed with the others resolved ("context.arguments: A
	// mapping of already-resolved argument names to their values").
	done := map[string]bool{}
	for _, of := range several {
		if done[of[0].kind] || !l.p.alive() || ctx.Err() != nil {
			continue
		}
		done[of[0].kind] = true
		last := of[len(of)-1]
		resolved := map[string]string{}
		for _, t := range of[:len(of)-1] {
			resolved[t.arg] = cmp.Or(first[t], placeholderValue)
		}
		params := completeParams(last.kind, last.key, last.ref, last.arg)
		params["context"] = map[string]any{"arguments": resolved}
		l.call(ctx, plan.ProbeCompleteContext.Tag(), "completion/complete", params)
	}
}

// placeholderValue is the value the suite gives an argument it has no
// better value for (the server offered none): "1" reads as a name, a
// number and an id alike.
const placeholderValue = "1"

// completeParams are the params of a completion/complete of argument arg
// of the prompt or template ref, with the empty value.
func completeParams(kind, key, ref, arg string) map[string]any {
	return map[string]any{
		"ref":      map[string]any{"type": kind, key: ref},
		"argument": map[string]any{"name": arg, "value": ""},
	}
}
