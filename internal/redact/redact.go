// Package redact takes secrets out of what a run writes: the values of
// environment variables the user names (--redact-env), wherever they occur
// in the saved evidence and the reports, replaced by [redacted:NAME].
//
// It works on JSON: every string of a document (member names too), and
// every base64 member "b64" (a transcript line that is not UTF-8), has
// each secret replaced, as it is written and as JSON escapes it, so that
// a value inside a JSON-RPC line recorded as text goes too.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"
)

// MinLength is the shortest value redacted: a shorter one ("1", "on")
// occurs in ordinary text, which replacing it would blank out.
const MinLength = 4

// Secret is a value to take out, and the name it is replaced with.
type Secret struct {
	Name, Value string
}

// Mark is what a secret is replaced with.
func (s Secret) Mark() string { return "[redacted:" + s.Name + "]" }

// Secrets builds the secrets named: the value of each name from extra
// (KEY=VALUE pairs, as --env takes them; the last one wins), else from
// lookup (the environment). It returns the names it has no value for,
// and those whose value is shorter than MinLength, which are left out.
func Secrets(names, extra []string, lookup func(string) (string, bool)) (secrets []Secret, missing, short []string) {
	given := map[string]string{}
	for _, kv := range extra {
		if k, v, ok := strings.Cut(kv, "="); ok {
			given[k] = v
		}
	}
	for _, name := range names {
		v, ok := given[name]
		if !ok {
			v, ok = lookup(name)
		}
		switch {
		case !ok || v == "":
			missing = append(missing, name)
		case len(v) < MinLength:
			short = append(short, name)
		default:
			secrets = append(secrets, Secret{Name: name, Value: v})
		}
	}
	// A longer value first: one secret may hold another.
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i].Value) > len(secrets[j].Value) })
	return secrets, missing, short
}

// String returns s with every secret replaced, as written and as the
// usual JSON encoders escape it inside a string.
func String(s string, secrets []Secret) string {
	for _, sec := range secrets {
		for _, form := range forms(sec.Value) {
			s = strings.ReplaceAll(s, form, sec.Mark())
		}
	}
	return s
}

// forms is v as written, then as it reads inside a JSON string (without
// the quotes) the ways encoders write it: other characters as they are
// (Go, JavaScript) or as \u escapes (Python's default, in lower or upper
// case hex), and "/" as it is or as "\/" (PHP).
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		for _, g := range []string{f, strings.ReplaceAll(f, "/", `\/`)} {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	b, _ := json.Marshal(v)
	plain := string(b[1 : len(b)-1])
	add(plain)
	var lower, upper strings.Builder
	for _, r := range plain {
		switch {
		case r < 0x80:
			lower.WriteRune(r)
			upper.WriteRune(r)
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&lower, `\u%04x`, u)
				fmt.Fprintf(&upper, `\u%04X`, u)
			}
		}
	}
	add(lower.String())
	add(upper.String())
	return out
}

// JSON returns the JSON document data with every secret taken out of its
// strings. The document keeps its shape; numbers keep their text.
func JSON(data []byte, secrets []Secret) ([]byte, error) {
	if len(secrets) == 0 {
		return data, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("redacting: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(walk(doc, secrets)); err != nil {
		return nil, fmt.Errorf("redacting: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Value takes the secrets out of v, a value encoding/json can encode, and
// decodes the result into out (a pointer to v's type, or v itself).
func Value(v any, secrets []Secret, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("redacting: %w", err)
	}
	if data, err = JSON(data, secrets); err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func walk(v any, secrets []Secret) any {
	switch x := v.(type) {
	case string:
		return String(x, secrets)
	case []any:
		for i := range x {
			x[i] = walk(x[i], secrets)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if s, ok := val.(string); ok && k == "b64" {
				out[k] = redactBase64(s, secrets)
				continue
			}
			out[String(k, secrets)] = walk(val, secrets)
		}
		return out
	}
	return v
}

// redactBase64 takes the secrets out of bytes kept as base64.
func redactBase64(s string, secrets []Secret) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return String(s, secrets)
	}
	for _, sec := range secrets {
		b = bytes.ReplaceAll(b, []byte(sec.Value), []byte(sec.Mark()))
	}
	return base64.StdEncoding.EncodeToString(b)
}
