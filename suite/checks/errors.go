package checks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/wire"
)

// errorsChecks judge the error codes a server uses (ERR-*); the codes of
// single probes are judged by vector tests.
func errorsChecks() []*Check {
	return []*Check{
		{
			ID: "not-found-code-only-for-resources", Requirement: "ERR-06", Area: "errors",
			Description: "-32002 (resource not found) answers only resource requests",
			Versions:    legacyOnly,
			Judge:       checkNotFoundCodeUse,
		},
		{
			ID: "error-code-allocation", Requirement: "ERR-07", Area: "errors",
			Description: "no retired codes (-32002, -32042) and no undefined codes from the spec's range -32020…-32099; the legacy range -32000…-32019 is discouraged",
			Judge:       checkCodeAllocation,
		},
		{
			ID: "no-header-mismatch-on-stdio", Requirement: "ERR-10", Area: "errors",
			Description: "-32020 (HTTP header mismatch) never appears on stdio",
			Transport:   evidence.TransportStdio,
			Judge:       checkNoHeaderMismatch,
		},
		{
			ID: "error-message-one-line", Requirement: "ERR-13", Area: "errors",
			Description: "an error message is one short sentence: no line breaks, no stack trace",
			Judge:       checkErrorMessages,
		},
	}
}

// StandardCodes is the requirement a wrong standard JSON-RPC error code is
// graded under where no MUST sentence of the version names the code:
// JSON-RPC 2.0 names -32700, -32600, -32601, -32602 and -32603 in a table
// of pre-defined errors, with no MUST on using each, and MCP recommends
// them ("Servers SHOULD return standard JSON-RPC errors").
const StandardCodes = "ERR-15"

// wrongCode marks a finding about a wrong error code: where the check's own
// requirement would fail it (its sentence names the code without a
// keyword, or not at all), it is graded under StandardCodes instead, so
// that one wrong code gets one grade whichever check saw it.
func wrongCode(f Finding, own, v string) Finding {
	if st, ok := statement(own, v); ok && catalog.SeverityOf(st.Level) == catalog.Fail && !strings.HasPrefix(st.Level, "MUST") {
		f.Requirement = StandardCodes
	}
	return f
}

func checkNotFoundCodeUse(j *J) Finding {
	t := &tally{}
	eachErrorCode(j, func(p *evidence.Process, x *evidence.Exchange, code int64) {
		if era, _ := p.EraAt(x.RecvSeq); era != wire.EraLegacy {
			return // before initialize, and in 2026-07-28 (judged by ERR-07)
		}
		t.judged()
		if code == wire.CodeResourceNotFound && !strings.HasPrefix(x.Method, "resources/") {
			t.violate(At(p, x.RecvSeq), "-32002 (resource not found) answered %s", clipString(x.Method, 40))
		}
	})
	return t.finding(fmt.Sprintf("%d error codes; -32002 only answers resource requests", t.n), "no error response to judge")
}

// checkNoHeaderMismatch judges the codes of the 2026-07-28 era only:
// before it, -32020 lies in the range JSON-RPC leaves to implementations,
// and a dual-era server may use it after a legacy initialize.
func checkNoHeaderMismatch(j *J) Finding {
	t := &tally{}
	eachErrorCode(j, func(p *evidence.Process, x *evidence.Exchange, code int64) {
		if era, _ := p.EraAt(x.RecvSeq); era != wire.EraModern {
			return
		}
		t.judged()
		if code == wire.CodeHeaderMismatch {
			t.violate(At(p, x.RecvSeq), "-32020 answered %s on stdio", clipString(x.Method, 40))
		}
	})
	return t.finding(fmt.Sprintf("%d error codes, none -32020", t.n), "no error response of the 2026-07-28 era")
}

func checkCodeAllocation(j *J) Finding {
	t := &tally{}
	eachErrorCode(j, func(p *evidence.Process, x *evidence.Exchange, code int64) {
		if era, _ := p.EraAt(x.RecvSeq); era != wire.EraModern {
			return
		}
		t.judged()
		w := At(p, x.RecvSeq)
		switch {
		case code == wire.CodeResourceNotFound || code == wire.CodeURLElicitationRequired:
			t.violate(w, "the retired code %d answered %s", code, clipString(x.Method, 40))
		case code <= -32020 && code >= -32099 && code != wire.CodeMissingClientCapability && code != wire.CodeUnsupportedProtocolVersion && code != wire.CodeHeaderMismatch:
			t.violate(w, "%d, from the range the spec keeps for itself, answered %s", code, clipString(x.Method, 40))
		case code <= -32000 && code >= -32019:
			t.dispute(w, "%d, from the legacy implementation-defined range new implementations should not use, answered %s", code, clipString(x.Method, 40))
		}
	})
	return t.finding(fmt.Sprintf("%d error codes, each allocated correctly", t.n), "no error response of the 2026-07-28 era")
}

// checkErrorMessages judges the message of every error response to
// well-formed traffic: one concise sentence (a schema doc comment says so).
func checkErrorMessages(j *J) Finding {
	t := &tally{}
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		if !x.OK() || p.Provoked(x.RecvSeq) {
			return
		}
		e := x.Response.DecodeError()
		if e == nil {
			return
		}
		msg, ok := wire.String(e.Message)
		if !ok {
			return
		}
		t.judged()
		switch {
		case strings.ContainsAny(msg, "\r\n"):
			t.violate(At(p, x.RecvSeq), "the error answering %s has a message of several lines (%d bytes)", clipString(x.Method, 40), len(msg))
		case len(msg) > 500:
			t.violate(At(p, x.RecvSeq), "the error answering %s has a message of %d bytes, not one short sentence", clipString(x.Method, 40), len(msg))
		}
	})
	return t.finding(fmt.Sprintf("%d error messages, each one line", t.n), "no error response to judge")
}
