package checks

import (
	"encoding/json"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// promptsChecks judge prompts/list, the prompts it lists and prompts/get
// of each (PROMPTS-*), from what discovery did when the server declared
// prompts: getting a prompt renders messages and changes nothing.
func promptsChecks() []*Check {
	return []*Check{
		{
			ID: "prompts-list-result-shape", Requirement: "PROMPTS-04", Area: "prompts",
			Description: "every prompts/list page is a result with a prompts array",
			Requires:    []string{"prompts"},
			Judge:       func(j *J) Finding { return listPages(j.Version, j.Session.Prompts(), true) },
		},
		{
			ID: "prompts-list-item-fields", Requirement: "PROMPTS-06", Area: "prompts",
			Description: "every listed prompt has a string name; description, when present, is a string; each argument has a string name and, when present, a string description and a boolean required",
			Requires:    []string{"prompts"},
			Judge:       checkPromptFields,
		},
		{
			ID: "prompts-unique-names", Requirement: "PROMPTS-07", Area: "prompts",
			Description: "no prompt name is listed twice in one walk of prompts/list, unless the list changed meanwhile",
			Requires:    []string{"prompts"},
			Judge: func(j *J) Finding {
				announces := j.Caps().Has("prompts.listChanged") && !j.Session.Modern
				return checkUnique(j.Session.Prompts(), "name", "notifications/prompts/list_changed", announces, "prompt names", "the server lists no prompts")
			},
		},
		{
			ID: "prompts-get-result-shape", Requirement: "PROMPTS-10", Area: "prompts",
			Description: "prompts/get of each listed prompt (required arguments filled in) is a result with a messages array; description, when present, is a string",
			Requires:    []string{"prompts"},
			Judge:       checkPromptGets,
		},
		{
			ID: "prompts-message-roles", Requirement: "PROMPTS-11", Area: "prompts",
			Description: `every message of a prompt has the role "user" or "assistant"`,
			Requires:    []string{"prompts"},
			Judge:       checkPromptRoles,
		},
		{
			ID: "prompts-message-content", Requirement: "PROMPTS-12", Area: "prompts",
			Description: "every message of a prompt holds one content block, an object of a type the version defines",
			Requires:    []string{"prompts"},
			Judge:       checkPromptContent,
		},
		{
			ID: "prompts-missing-argument", Requirement: "PROMPTS-15", Area: "prompts",
			Description: "prompts/get of a prompt without an argument it marks required gets the error -32602",
			Needs:       []plan.Probe{plan.ProbePromptMissingArgument},
			Requires:    []string{"prompts"},
			Judge:       checkMissingArgument,
		},
		{
			ID: "prompts-title", Requirement: "PROMPTS-08", Area: "prompts",
			Description: "every prompt's title and every prompt argument's title, when present, is a string",
			Requires:    []string{"prompts"},
			Judge:       checkPromptTitles,
		},
		{
			ID: "prompts-binary-content", Requirement: "PROMPTS-13", Area: "prompts",
			Description: "every image or audio block of a prompt message has strict base64 data and a valid MIME type",
			Requires:    []string{"prompts"},
			Trigger:     "a prompt whose messages hold an image or audio block: the server's own prompts (the reference server's describe-media)",
			Judge:       checkPromptBinary,
		},
		{
			ID: "prompts-list-changed-only-if-declared", Requirement: "PROMPTS-17", Area: "prompts",
			Description: "notifications/prompts/list_changed comes only after the server declared prompts.listChanged (2026-07-28: only on a listen stream that asked for promptsListChanged)",
			Needs:       []plan.Probe{plan.ProbeToolCall, plan.ProbeListenHeld},
			Requires:    []string{"prompts"},
			Trigger:     "a prompt list that changes during the run: a tool call that changes it (only tools --call-tools allows are called; the reference server's enable_extras does), or a change from outside the session",
			Judge:       func(j *J) Finding { return listChangedDeclared(j, "prompts") },
		},
	}
}

func checkPromptFields(j *J) Finding {
	t := &tally{}
	l := j.Session.Prompts()
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		t.judged()
		what := "prompt " + label(m, i, "name")
		if m == nil {
			t.violate(w, "prompt #%d is %s, want an object", i+1, describeType(l.Items[i]))
			continue
		}
		if _, ok := wire.String(m["name"]); !ok {
			t.violate(w, "%s: name is %s, want a string", what, describeType(m["name"]))
		}
		if d, ok := m["description"]; ok && wire.Type(d) != "string" {
			t.violate(w, "%s: description is %s, want a string", what, describeType(d))
		}
		raw, ok := m["arguments"]
		if !ok {
			continue
		}
		args, isArray := wire.Array(raw)
		if !isArray {
			t.violate(w, "%s: arguments is %s, want an array", what, describeType(raw))
			continue
		}
		for k, a := range args {
			am := wire.Object(a)
			if am == nil {
				t.violate(w, "%s: argument #%d is %s, want an object", what, k+1, describeType(a))
				continue
			}
			if _, ok := wire.String(am["name"]); !ok {
				t.violate(w, "%s: argument #%d: name is %s, want a string", what, k+1, describeType(am["name"]))
			}
			if d, ok := am["description"]; ok && wire.Type(d) != "string" {
				t.violate(w, "%s: argument #%d: description is %s, want a string", what, k+1, describeType(d))
			}
			if r, ok := am["required"]; ok && wire.Type(r) != "boolean" {
				t.violate(w, "%s: argument #%d: required is %s, want a boolean", what, k+1, describeType(r))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d prompt(s), each with a name", t.n), "the server lists no prompts")
}

// answeredGets calls f with every prompts/get of discovery that got a
// result, as the get came to after the suite's retries: a
// GetPromptResult. An error answer is legal (the placeholder the suite
// filled in may not suit the prompt): with record set it is recorded,
// else passed over. An InputRequiredResult still asking for input is
// judged by the input_required checks. Silence is left to
// every-request-answered.
func answeredGets(j *J, t *tally, record bool, f func(g *evidence.PromptGet, res map[string]json.RawMessage, w *Where)) {
	for _, g := range j.Session.PromptGets() {
		x := g.X
		if x.Stopped() || !x.OK() {
			continue
		}
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		if !x.Response.Has("result") {
			if !record {
				continue
			}
			t.judged()
			t.record(w, "prompt %q: an error: %s", clipString(g.Name, 60), clipJSON(x.Response.Error, 160))
			continue
		}
		res := wire.Object(x.Response.Result)
		if res == nil {
			continue // judged by jsonrpc-result-object
		}
		if evidence.Complete(j.Version, x) == nil {
			t.unexercise("%s", notComplete(j.Version, x, len(g.Earlier)))
			continue
		}
		f(g, res, w)
	}
}

func checkPromptGets(j *J) Finding {
	t := &tally{}
	answeredGets(j, t, true, func(g *evidence.PromptGet, res map[string]json.RawMessage, w *Where) {
		t.judged()
		if _, ok := wire.Array(res["messages"]); !ok {
			t.violate(w, "prompt %q: messages is %s, want an array", clipString(g.Name, 60), describeType(res["messages"]))
		}
		if d, ok := res["description"]; ok && wire.Type(d) != "string" {
			t.violate(w, "prompt %q: description is %s, want a string", clipString(g.Name, 60), describeType(d))
		}
	})
	return t.finding(fmt.Sprintf("%d prompt(s) got, each with messages", t.n), "no listed prompt was got")
}

// eachPromptMessage calls f with every message of every prompt got.
func eachPromptMessage(j *J, t *tally, f func(name string, k int, m map[string]json.RawMessage, raw json.RawMessage, w *Where)) {
	answeredGets(j, t, false, func(g *evidence.PromptGet, res map[string]json.RawMessage, w *Where) {
		msgs, _ := wire.Array(res["messages"])
		for k, raw := range msgs {
			f(g.Name, k, wire.Object(raw), raw, w)
		}
	})
}

func checkPromptRoles(j *J) Finding {
	t := &tally{}
	eachPromptMessage(j, t, func(name string, k int, m map[string]json.RawMessage, raw json.RawMessage, w *Where) {
		t.judged()
		if m == nil {
			t.violate(w, "prompt %q: message #%d is %s, want an object", clipString(name, 60), k+1, describeType(raw))
			return
		}
		if role, _ := wire.String(m["role"]); role != "user" && role != "assistant" {
			t.violate(w, "prompt %q: message #%d has the role %s, want \"user\" or \"assistant\"", clipString(name, 60), k+1, clipJSON(m["role"], 40))
		}
	})
	return t.finding(fmt.Sprintf("%d message(s), each of a user or an assistant", t.n), "no prompt message was got")
}

func checkPromptContent(j *J) Finding {
	t := &tally{}
	types := promptContentTypes(j.Version)
	eachPromptMessage(j, t, func(name string, k int, m map[string]json.RawMessage, _ json.RawMessage, w *Where) {
		if m == nil {
			return // prompts-message-roles judges it
		}
		t.judged()
		c := wire.Object(m["content"])
		if c == nil {
			t.violate(w, "prompt %q: message #%d: content is %s, want one content block (an object)", clipString(name, 60), k+1, describeType(m["content"]))
			return
		}
		if typ, _ := wire.String(c["type"]); !slices.Contains(types, typ) {
			t.violate(w, "prompt %q: message #%d: a content block of type %s, which %s does not define (it has %v)", clipString(name, 60), k+1, clipJSON(c["type"], 40), j.Version, types)
		}
	})
	return t.finding(fmt.Sprintf("%d message(s), each with one content block of a known type", t.n), "no prompt message was got")
}

func checkMissingArgument(j *J) Finding {
	what := func(x *evidence.Exchange) string {
		name := ""
		if x.Request != nil {
			name, _ = wire.String(wire.Object(x.Request.Params)["name"])
		}
		return fmt.Sprintf("prompt %q without its required arguments", clipString(name, 60))
	}
	return errorProbe(j.Run, j.Version, j.Session.Tagged(plan.ProbePromptMissingArgument.Tag()), wire.CodeInvalidParams, what,
		"a missing required argument gets -32602", "no listed prompt has a required argument")
}

func checkPromptTitles(j *J) Finding {
	t := &tally{}
	l := j.Session.Prompts()
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		what := "prompt " + label(m, i, "name")
		if v, ok := m["title"]; ok {
			t.judged()
			if wire.Type(v) != "string" {
				t.violate(w, "%s: title is %s, want a string", what, describeType(v))
			}
		}
		args, _ := wire.Array(m["arguments"])
		for k, a := range args {
			if v, ok := wire.Object(a)["title"]; ok {
				t.judged()
				if wire.Type(v) != "string" {
					t.violate(w, "%s: argument #%d: title is %s, want a string", what, k+1, describeType(v))
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d title(s) of prompts and arguments, each a string", t.n), "no listed prompt or argument has a title")
}

func checkPromptBinary(j *J) Finding {
	t := &tally{}
	eachPromptMessage(j, t, func(name string, k int, m map[string]json.RawMessage, _ json.RawMessage, w *Where) {
		c := wire.Object(m["content"])
		typ, _ := wire.String(c["type"])
		if typ != "image" && typ != "audio" {
			return
		}
		t.judged()
		at := fmt.Sprintf("prompt %q: message #%d (%s)", clipString(name, 60), k+1, typ)
		checkBase64Data(t, w, at, c["data"])
		if mt, ok := wire.String(c["mimeType"]); !ok {
			t.violate(w, "%s: mimeType is %s, want a MIME type", at, describeType(c["mimeType"]))
		} else if !validMediaType(mt) {
			t.violate(w, "%s: mimeType %q is not a valid MIME type (type/subtype)", at, clipString(mt, 60))
		}
	})
	return t.finding(fmt.Sprintf("%d image or audio block(s) in prompt messages, each base64 with a valid MIME type", t.n), "no prompt message held an image or audio block")
}

// validMediaType reports whether s is a media type, type/subtype with
// optional parameters (RFC 2045 syntax, as Go's mime package reads it).
func validMediaType(s string) bool {
	mt, _, err := mime.ParseMediaType(s)
	typ, sub, ok := strings.Cut(mt, "/")
	return err == nil && ok && typ != "" && sub != ""
}
