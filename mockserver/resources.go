package mockserver

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
	"github.com/yosida95/uritemplate/v3"
)

// hostileText is what hostile-strings adds to names, descriptions, texts and
// error messages: markup, CDATA end, ANSI CSI and OSC sequences and C0
// controls. Strings that come from a server are data; a harness must
// escape them wherever it shows them.
const hostileText = "<script>alert(1)</script> ]]> \x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x01\x02\x7f"

// ciCommands is what ci-commands adds to the server's strings: GitHub
// workflow commands, one at the start of a line and one anywhere in it. A
// job log that shows a server's strings must not run them.
const ciCommands = "::add-mask::FAIL ##[error file=README.md,line=1]forged"

// addFaultResources changes the served lists as the list faults ask.
func (s *server) addFaultResources() {
	if s.faults.has("ci-commands") {
		for i, e := range s.listed {
			h := *e
			h.Name = ciCommands + " " + h.Name
			s.listed[i] = &h
		}
	}
	if s.faults.has("hostile-strings") {
		for i, e := range s.listed {
			h := *e
			h.Name += " " + hostileText
			h.Description += " " + hostileText + " " + markSurrogate
			if h.isText {
				h.data = append(slices.Clip(h.data), []byte(" "+hostileText+"\x00")...)
			}
			s.listed[i] = &h
		}
		for i, t := range s.templates {
			h := *t
			h.Name += " " + hostileText
			h.Description += " " + hostileText + " " + markSurrogate
			s.templates[i] = &h
		}
	}
	text := func(uri, name string, data []byte) *entry {
		return &entry{Resource: Resource{URI: uri, Name: name, MimeType: "text/plain"}, data: data, isText: true}
	}
	if s.faults.has("resource-bad-uri") {
		e := text("test://mcpconform-mock/bad uri.txt", "bad-uri", []byte("This resource's URI holds a raw space.\n"))
		e.contentsURI = "test://mcpconform-mock/bad%20uri.txt" // a read answers with the valid form
		s.listed = append(s.listed, e)
	}
	if s.faults.has("huge-response") {
		s.listed = append(s.listed, text("test://mcpconform-mock/huge.txt", "huge", bytes.Repeat([]byte("0123456789abcdef"), 50<<20/16)))
	}
	if s.faults.has("duplicate-uris") && len(s.listed) > 0 {
		dup := *s.listed[0]
		dup.Name += "-again"
		s.listed = append(s.listed, &dup)
	}
	if s.faults.has("template-unbalanced") {
		s.templates = append(s.templates, &templateEntry{Template: Template{URITemplate: "file:///{path", Name: "unbalanced", Read: TemplateRead{Rule: RuleNotFound}}})
	}
}

// lookup finds a listed resource by its exact URI.
func (s *server) lookup(uri string) *entry {
	for _, e := range s.listed {
		if e.URI == uri {
			return e
		}
	}
	return nil
}

func (s *server) listResources(params json.RawMessage) (any, *rpcError) {
	pg, rerr := s.page(listResources, params, len(s.listed), s.cat.pageRes)
	if rerr != nil {
		return nil, rerr
	}
	listed := s.rotated(pg.state)
	items := make([]any, 0, pg.end-pg.start)
	for i := pg.start; i < pg.end; i++ {
		items = append(items, s.resourceJSON(listed[i], i == 0))
	}
	result := object{"resources": items}
	if s.faults.has("list-not-array") {
		byURI := object{}
		for i := pg.start; i < pg.end; i++ {
			byURI[listed[i].URI] = items[i-pg.start]
		}
		result["resources"] = byURI
	}
	pg.addTo(result)
	if s.faults.has("list-meta-not-object") && s.atLeast(v20250618) {
		result["_meta"] = "x"
	}
	s.churnList()
	return result, nil
}

func (s *server) listTemplates(params json.RawMessage) (any, *rpcError) {
	pg, rerr := s.page(listTemplates, params, len(s.templates), s.cat.pageTpl)
	if rerr != nil {
		return nil, rerr
	}
	items := make([]any, 0, pg.end-pg.start)
	for i := pg.start; i < pg.end; i++ {
		items = append(items, s.templateJSON(s.templates[i], i == 0))
	}
	result := object{"resourceTemplates": items}
	if s.faults.has("templates-not-array") {
		byName := object{}
		for i := pg.start; i < pg.end; i++ {
			byName[s.templates[i].Name] = items[i-pg.start]
		}
		result["resourceTemplates"] = byName
	}
	pg.addTo(result)
	return result, nil
}

// servedSize is the number of bytes a read of e returns.
func (s *server) servedSize(e *entry) int {
	if !e.isText && len(e.data) > 0 && s.faults.has("binary-as-text") {
		return base64.StdEncoding.EncodedLen(len(e.data))
	}
	return len(e.data)
}

// resourceJSON renders a Resource for the negotiated version: title and
// _meta exist from 2025-06-18, icons from 2025-11-25. first marks the first
// resource of the list, which the list faults pick on.
func (s *server) resourceJSON(e *entry, first bool) object {
	o := object{"uri": e.URI, "name": e.Name}
	// A directory has no byte count, and size is optional.
	if e.children == nil && !s.variants.has("minimal-metadata") {
		o["size"] = s.num(s.servedSize(e))
	}
	newer := s.faults.has("newer-fields")
	s.addDescriptive(o, e.Title, e.Description, e.MimeType, newer)
	if a := s.annotationsJSON(e.Annotations, first); a != nil {
		o["annotations"] = a
	}
	icons := e.Icons
	if first && s.faults.has("bad-icon-scheme") && s.atLeast(v20251125) {
		icons = append(slices.Clone(icons), Icon{Src: "javascript:alert(1)", MimeType: "image/png"})
	}
	s.addIconsAndMeta(o, icons, s.metaFor(e.Meta, first), newer)
	if first && s.faults.has("icon-src-not-string") && s.atLeast(v20251125) {
		list := make([]any, 0, len(icons)+1)
		for _, ic := range icons {
			list = append(list, ic)
		}
		o["icons"] = append(list, object{"src": 42, "mimeType": "image/png"})
	}
	s.dressItem(o)
	if !first {
		return o
	}
	if s.faults.has("resource-missing-name") {
		delete(o, "name")
	}
	if s.faults.has("resource-empty-title") && s.atLeast(v20250618) {
		o["title"] = ""
	}
	if s.faults.has("size-mismatch") {
		o["size"] = s.servedSize(e) + 1
	}
	if s.faults.has("resource-bad-field-types") {
		o["size"] = strconv.Itoa(s.servedSize(e))
		o["mimeType"] = 7
	}
	return o
}

func (s *server) templateJSON(t *templateEntry, first bool) object {
	o := object{"uriTemplate": t.URITemplate, "name": t.Name}
	s.addDescriptive(o, t.Title, t.Description, t.MimeType, false)
	if a := s.annotationsJSON(t.Annotations, false); a != nil {
		o["annotations"] = a
	}
	s.addIconsAndMeta(o, t.Icons, t.Meta, false)
	s.dressItem(o)
	if first && s.faults.has("template-missing-name") {
		delete(o, "name")
	}
	return o
}

// addDescriptive adds title (from 2025-06-18, or always with newer),
// description and mimeType.
func (s *server) addDescriptive(o object, title, description, mimeType string, newer bool) {
	if title != "" && (s.atLeast(v20250618) || newer) {
		o["title"] = title
	}
	if description != "" {
		o["description"] = description
	}
	if mimeType != "" {
		o["mimeType"] = mimeType
	}
}

// addIconsAndMeta adds icons (from 2025-11-25) and _meta (from
// 2025-06-18), or both always with newer.
func (s *server) addIconsAndMeta(o object, icons []Icon, meta map[string]any, newer bool) {
	if len(icons) > 0 && (s.atLeast(v20251125) || newer) {
		o["icons"] = icons
	}
	if len(meta) > 0 && (s.atLeast(v20250618) || newer) {
		o["_meta"] = meta
	}
}

// metaFor adds the _meta faults to the first resource's _meta.
func (s *server) metaFor(meta map[string]any, first bool) map[string]any {
	if !first {
		return meta
	}
	if s.faults.has("bad-meta-key") && s.atLeast(v20250618) {
		meta = maps.Clone(meta)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["bad key!"] = 1
	}
	if s.faults.has("meta-forward-dns") && s.atLeast(v20251125) {
		meta = maps.Clone(meta)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["example.com/x"] = true
	}
	if s.faults.has("reserved-meta-key") && s.atLeast(v20250618) {
		meta = maps.Clone(meta)
		if meta == nil {
			meta = map[string]any{}
		}
		// The reserved prefixes differ: the 2025-11-25 rule reserves a second
		// label "modelcontextprotocol", the 2025-06-18 rule one followed by
		// another label.
		if s.atLeast(v20251125) {
			meta["io.modelcontextprotocol/bogus"] = true
		} else {
			meta["modelcontextprotocol.io/bogus"] = true
		}
	}
	return meta
}

// annotationsJSON renders annotations for the negotiated version
// (lastModified exists from 2025-06-18); the annotation faults act on the
// first resource.
func (s *server) annotationsJSON(a *Annotations, first bool) object {
	o := object{}
	if a != nil {
		if a.Audience != nil {
			o["audience"] = a.Audience
		}
		if a.Priority != nil {
			o["priority"] = s.fraction(*a.Priority)
		}
		if a.LastModified != "" && s.atLeast(v20250618) {
			o["lastModified"] = a.LastModified
		}
	}
	if first {
		if s.faults.has("bad-annotations") || s.faults.has("bad-audience") {
			o["audience"] = []string{"robot"}
		}
		if s.faults.has("bad-annotations") || s.faults.has("bad-priority") {
			o["priority"] = 1.5
		}
		if s.faults.has("bad-last-modified") && s.atLeast(v20250618) {
			o["lastModified"] = "yesterday"
		}
	}
	if len(o) == 0 && a == nil {
		return nil
	}
	return o
}

// uriParam reads params.uri (RES-READ-01, ERR-04).
func uriParam(params json.RawMessage) (string, *rpcError) {
	var p struct {
		URI *string `json:"uri"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.URI == nil {
		return "", invalidParams("Invalid params: uri must be a string.")
	}
	return *p.URI, nil
}

// validRequestURI refuses URIs that are malformed or too long with -32602
// ("Servers MUST validate all resource URIs").
func validRequestURI(uri string) *rpcError {
	if len(uri) > maxURILength {
		return &rpcError{Code: wire.CodeInvalidParams, Message: "Invalid params: the URI is longer than " + strconv.Itoa(maxURILength) + " bytes.", Data: object{"uri": uri}, hostile: true}
	}
	if msg := uriProblem(uri, true); msg != "" {
		return &rpcError{Code: wire.CodeInvalidParams, Message: "Invalid params: " + msg + ".", Data: object{"uri": uri}, hostile: true}
	}
	return nil
}

// read answers resources/read: listed resources first, then templates in
// order; anything else is not found (RES-READ-05).
func (s *server) read(params json.RawMessage) (any, *rpcError) {
	uri, rerr := uriParam(params)
	if rerr != nil {
		return nil, rerr
	}
	if e := s.lookup(uri); e != nil {
		if s.faults.has("listed-resource-unreadable") && e == s.listed[len(s.listed)-1] {
			return nil, &rpcError{Code: wire.CodeInternalError, Message: "Internal error: reading the resource failed.", Data: object{"uri": uri}}
		}
		if s.askInput("resources/read", e.URI, params) {
			return object{}, nil
		}
		if s.faults.has("listed-read-empty") && e == s.listed[0] {
			return s.readResultOf([]any{}), nil
		}
		contentsURI := cmp.Or(e.contentsURI, uri)
		if s.faults.has("read-uri-renamed") && len(s.listed) > 1 && e == s.listed[1] {
			contentsURI = s.listed[0].URI
		}
		var result object
		if e.children != nil {
			var items []any
			for _, c := range e.children {
				items = append(items, s.contentItems(c.URI, c.MimeType, c.data, c.isText, false)...)
			}
			result = s.readResultOf(items)
		} else {
			result = s.readResult(contentsURI, e.MimeType, e.data, e.isText, false)
		}
		s.fireTriggers(uri)
		s.afterVariantRead(e)
		return result, nil
	}
	if c := s.child(uri); c != nil {
		return s.readResult(uri, c.MimeType, c.data, c.isText, false), nil
	}
	if rerr := validRequestURI(uri); rerr != nil {
		return nil, rerr
	}
	if suspiciousURI(uri) {
		if s.faults.has("hostile-uri-leak") {
			return s.readResult(uri, "text/plain", []byte("root:x:0:0:root:/root:/bin/bash\n"), true, false), nil
		}
		return nil, s.hostileNotFound(uri)
	}
	if s.catchAll(uri) {
		return s.readResult(uri, "text/plain", []byte("The echo scheme serves every URI; this one is "+uri+"\n"), true, true), nil
	}
	for _, t := range s.templates {
		if t.tmpl == nil {
			continue
		}
		vals := t.tmpl.Match(uri)
		if vals == nil {
			continue
		}
		if s.faults.has("template-read-error") {
			return nil, &rpcError{Code: wire.CodeInternalError, Message: "Internal error: reading the resource failed.", Data: object{"uri": uri}}
		}
		text, mime, ok := t.render(vals)
		if !ok {
			return nil, s.notFoundError(uri) // a template miss: the unknown-uri faults leave it alone
		}
		result := s.readResult(uri, mime, []byte(text), true, true)
		s.fireTriggers(uri)
		return result, nil
	}
	if !isASCII(uri) {
		// A raw non-ASCII URI is a hostile probe (RES-READ-10): it gets an
		// error even under unknown-uri-success.
		return nil, s.hostileNotFound(uri)
	}
	return s.notFound(uri)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// render applies a template's read rule to the matched variables.
func (t *templateEntry) render(vals uritemplate.Values) (text, mimeType string, ok bool) {
	value := func(name string) (string, bool) {
		v := vals.Get(name)
		if !v.Valid() {
			return "", false
		}
		switch v.T {
		case uritemplate.ValueTypeString:
			return v.String(), true
		case uritemplate.ValueTypeList:
			return strings.Join(v.List(), ","), true
		default:
			return strings.Join(v.KV(), ","), true
		}
	}
	switch t.Read.Rule {
	case RuleEcho:
		if t.Read.Format == "" {
			m := map[string]string{}
			for _, name := range t.tmpl.Varnames() {
				if v, ok := value(name); ok {
					m[name] = v
				}
			}
			return string(marshal(m)), cmp.Or(t.MimeType, "application/json"), true
		}
		var pairs []string
		for _, name := range t.tmpl.Varnames() {
			v, _ := value(name)
			pairs = append(pairs, "{"+name+"}", v)
		}
		return strings.NewReplacer(pairs...).Replace(t.Read.Format), cmp.Or(t.MimeType, "text/plain"), true
	case RuleTable:
		v, _ := value(t.variable)
		row, ok := t.Read.Rows[v]
		return row, cmp.Or(t.MimeType, "text/plain"), ok
	}
	return "", "", false
}

// readResult builds a ReadResourceResult for one resource's content.
func (s *server) readResult(uri, mimeType string, data []byte, isText, fromTemplate bool) object {
	return s.readResultOf(s.contentItems(uri, mimeType, data, isText, fromTemplate))
}

// contentItems renders a resource's content as contents items: one, or one
// per line under fragment-sub-resources. The read faults act here.
func (s *server) contentItems(uri, mimeType string, data []byte, isText, fromTemplate bool) []any {
	if isText && len(data) > 0 && !strings.Contains(uri, "#") && s.variants.has("fragment-sub-resources") {
		var items []any
		for i, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) > 0 {
				items = append(items, s.contentItem(fmt.Sprintf("%s#line=%d,%d", uri, i, i+1), mimeType, line, true, fromTemplate))
			}
		}
		return items
	}
	return []any{s.contentItem(uri, mimeType, data, isText, fromTemplate)}
}

// contentItem is one TextResourceContents or BlobResourceContents.
func (s *server) contentItem(uri, mimeType string, data []byte, isText, fromTemplate bool) object {
	if s.variants.has("blob-only") {
		isText = false
	}
	if s.variants.has("contents-without-mime") {
		mimeType = ""
	}
	c := object{"uri": uri}
	if fromTemplate && s.faults.has("template-mimetype-mismatch") {
		if mimeType == "text/plain" {
			mimeType = "text/html"
		} else {
			mimeType = "text/plain"
		}
	}
	if mimeType != "" {
		c["mimeType"] = mimeType
	}
	switch {
	case isText:
		if len(data) > 0 || !s.faults.has("empty-text-omitted") {
			c["text"] = string(data)
		}
		if s.faults.has("text-and-blob") {
			c["blob"] = base64.StdEncoding.EncodeToString(data)
		}
	case len(data) > 0 && s.faults.has("binary-as-text"):
		c["text"] = base64.StdEncoding.EncodeToString(data)
	default:
		c["blob"] = s.encodeBlob(data)
	}
	if s.faults.has("contents-missing-uri") {
		delete(c, "uri")
	}
	if s.faults.has("contents-bad-uri") {
		c["uri"] = "not a valid uri"
	}
	if s.faults.has("contents-annotations") {
		c["annotations"] = object{"audience": []string{"user"}, "priority": 0.5}
	}
	if s.faults.has("contents-meta-bad-type") && s.atLeast(v20250618) {
		c["_meta"] = "x"
	}
	s.dressItem(c)
	return c
}

// readResultOf builds a ReadResourceResult around contents items.
func (s *server) readResultOf(items []any) object {
	result := object{"contents": items}
	if s.faults.has("contents-not-array") && len(items) == 1 {
		result["contents"] = items[0]
	}
	if s.faults.has("invalid-utf8") {
		result["_meta"] = object{"com.example.mock/note": markInvalidUTF8}
	}
	return result
}

// encodeBlob is standard, padded base64 on one line (RES-READ-03), unless a
// fault says otherwise.
func (s *server) encodeBlob(data []byte) string {
	b := base64.StdEncoding.EncodeToString(data)
	if s.faults.has("blob-bad-base64") {
		b = base64.RawURLEncoding.EncodeToString(data)
	}
	if s.faults.has("blob-wrapped-base64") {
		var w strings.Builder
		for len(b) > 76 {
			w.WriteString(b[:76])
			w.WriteByte('\n')
			b = b[76:]
		}
		w.WriteString(b)
		b = w.String()
	}
	return b
}

// notFound answers a read of a URI that nothing in the fixture matches:
// -32002 with data.uri up to 2025-11-25 (RES-READ-05 SHOULD, RES-READ-07),
// -32602 with data.uri in 2026-07-28, where it is a MUST and empty
// contents are forbidden (RES-READ-06), unless a fault says otherwise.
func (s *server) notFound(uri string) (any, *rpcError) {
	switch {
	case s.faults.has("unknown-uri-success"),
		s.req != nil && s.faults.has("not-found-empty-contents-modern"):
		return object{"contents": []any{}}, nil
	case s.faults.has("unknown-uri-32602"):
		return nil, s.notFoundCode(uri, wire.CodeInvalidParams)
	case s.faults.has("unknown-uri-internal"):
		return nil, s.notFoundCode(uri, wire.CodeInternalError)
	}
	return nil, s.notFoundError(uri)
}

// notFoundError is the resource-not-found error of the version served.
func (s *server) notFoundError(uri string) *rpcError {
	switch {
	case s.req == nil, s.faults.has("not-found-32002-modern"):
		return s.notFoundCode(uri, wire.CodeResourceNotFound)
	}
	return s.notFoundCode(uri, wire.CodeInvalidParams)
}

// hostileNotFound is the not-found error for a URI that is a probe.
func (s *server) hostileNotFound(uri string) *rpcError {
	e := s.notFoundError(uri)
	e.hostile = true
	return e
}

func (s *server) notFoundCode(uri string, code int) *rpcError {
	e := &rpcError{Code: code, Message: "Resource not found: " + short(uri) + "."}
	if !s.faults.has("not-found-no-data") {
		e.Data = object{"uri": uri}
	}
	return e
}
