package checks

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/wire"
)

// wholeLists names, per scenario, the lists the scenario asks the client
// to list to the end (docs/client-guide.md, Scenarios): elsewhere a client
// is free to want only a first page.
var wholeLists = map[string][]string{
	"initialize": {"tools/list"},
	"resources":  {"resources/list", "resources/templates/list"},
	"prompts":    {"prompts/list"},
}

// listMethods are the paginated list requests.
var listMethods = []string{"resources/list", "resources/templates/list", "prompts/list", "tools/list"}

// clientPaginationChecks judge how a client pages through lists (PAG-*).
func clientPaginationChecks() []*ClientCheck {
	var scenarios []string
	for s := range wholeLists {
		scenarios = append(scenarios, s)
	}
	slices.Sort(scenarios)
	return []*ClientCheck{
		{
			ID: "client-cursor-opaque", Requirement: "PAG-06", Area: "pagination",
			Description: "every cursor the client sends is one the server handed out for that list, unchanged",
			Judge:       checkClientCursorOpaque,
		},
		{
			ID: "client-empty-cursor-followed", Requirement: "PAG-07", Area: "pagination",
			Description: `in 2026-07-28 a nextCursor of "" is followed like any other, not taken for the end of the list`,
			Judge:       checkClientEmptyCursor,
		},
		{
			ID: "client-pages-to-end", Requirement: "PAG-10", Area: "pagination",
			Description: "asked for a whole list, the client follows every nextCursor to the last page, and stops where a cursor repeats",
			Scenarios:   scenarios,
			Judge:       checkClientPagesToEnd,
		},
	}
}

// listPage is a page of a list the client asked for: its request, the
// cursor it sent (sent reports whether it had one), and the nextCursor
// the server handed out (more reports whether it did).
type listPage struct {
	req        *sentMsg
	cursor     string
	sent       bool
	next       string
	more       bool
	walkBefore []string // the cursors sent earlier in the same walk
}

// pages returns the pages of method the client asked for, in order. A
// request without a cursor starts a walk.
func (v *spawnView) pages(method string) []*listPage {
	var out []*listPage
	var walk []string
	for _, r := range v.requests {
		if r.msg.Method != method {
			continue
		}
		pg := &listPage{req: r}
		raw, has := params(r.msg)["cursor"]
		if has && wire.Type(raw) != "null" {
			pg.cursor, _ = wire.String(raw)
			pg.sent = true
		} else {
			walk = nil
		}
		pg.walkBefore = slices.Clone(walk)
		if pg.sent {
			walk = append(walk, pg.cursor)
		}
		if r.resp != nil && !r.resp.Has("error") {
			pg.next, pg.more = wire.String(wire.Object(r.resp.Result)["nextCursor"])
		}
		out = append(out, pg)
	}
	return out
}

// followed reports whether the client asked for the page's nextCursor
// after the page's answer.
func (v *spawnView) followed(method string, pg *listPage) bool {
	for _, later := range v.pages(method) {
		if later.req.seq > pg.req.respSeq && later.sent && later.cursor == pg.next {
			return true
		}
	}
	return false
}

// continued reports whether the client went on with the page's walk: it
// asked for a next page with some cursor (the right one or not: whether
// the cursor is one the server handed out is PAG-06's) before starting
// the list again.
func (v *spawnView) continued(method string, pg *listPage) bool {
	for _, later := range v.pages(method) {
		if later.req.seq <= pg.req.respSeq {
			continue
		}
		return later.sent
	}
	return false
}

func checkClientCursorOpaque(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, m := range listMethods {
			var handed []string
			for _, pg := range v.pages(m) {
				if raw, has := params(pg.req.msg)["cursor"]; has && wire.Type(raw) != "null" {
					t.judged()
					switch {
					case wire.Type(raw) != "string":
						t.violate(v.at(pg.req.seq), "%s with the cursor %s, want a string the server handed out", m, clipJSON(raw, 60))
					case !slices.Contains(handed, pg.cursor):
						t.violate(v.at(pg.req.seq), "%s with the cursor %q, which the server never handed out for it (it gave %s)", m, clipString(pg.cursor, 60), quoteList(handed))
					}
				}
				if pg.more {
					handed = append(handed, pg.next)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("every cursor came back as the server handed it out (%d)", t.n), "the client sent no cursor")
}

func quoteList(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	var out []string
	for _, s := range ss[:min(len(ss), 4)] {
		out = append(out, fmt.Sprintf("%q", clipString(s, 40)))
	}
	if len(ss) > 4 {
		out = append(out, "…")
	}
	return fmt.Sprint(out)
}

func checkClientEmptyCursor(j *ClientJ) Finding {
	t := &tally{}
	whole := wholeLists[j.Scenario.Name]
	j.each(func(v *spawnView) {
		for _, m := range listMethods {
			pages := v.pages(m)
			walked := slices.Contains(whole, m) || slices.ContainsFunc(pages, func(pg *listPage) bool { return pg.sent && pg.cursor != "" })
			for _, pg := range pages {
				if !pg.more || pg.next != "" || slices.Contains(pg.walkBefore, "") || pg.sent && pg.cursor == "" {
					continue
				}
				if !walked {
					t.unexercise("the client followed no cursor of %s, so stopping at \"\" shows nothing", m)
					continue
				}
				t.judged()
				if !v.followed(m, pg) {
					t.violate(v.at(pg.req.respSeq), "%s: the page had nextCursor \"\" and the client asked for no more", m)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("every nextCursor \"\" was followed (%d)", t.n), "no page handed out the cursor \"\"")
}

func checkClientPagesToEnd(j *ClientJ) Finding {
	t := &tally{}
	modernEra := !wire.IsLegacy(j.Version)
	j.each(func(v *spawnView) {
		for _, m := range wholeLists[j.Scenario.Name] {
			pages := v.pages(m)
			if len(pages) == 0 {
				t.unexercise("the client did not ask for %s", m)
				continue
			}
			for _, pg := range pages {
				if pg.req.resp == nil || pg.req.resp.Has("error") {
					continue
				}
				t.judged()
				if !pg.more || modernEra && pg.next == "" {
					continue // the end, or PAG-07's
				}
				loop := slices.Contains(pg.walkBefore, pg.next) || pg.sent && pg.cursor == pg.next
				switch f := v.followed(m, pg); {
				case loop && f:
					t.dispute(v.at(pg.req.respSeq), "%s: the client followed the cursor %q again in the same walk (a loop; no sentence requires stopping, but a client that follows one never finishes)", m, clipString(pg.next, 60))
				case !loop && !f && !v.continued(m, pg):
					t.violate(v.at(pg.req.respSeq), "%s: the client stopped at a page with nextCursor %q", m, clipString(pg.next, 60))
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("every list was followed to its last page (%d pages)", t.n), "the client asked for none of the lists of the scenario")
}
