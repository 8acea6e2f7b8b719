package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestSecrets(t *testing.T) {
	env := map[string]string{"TOKEN": "from-the-environment", "PORT": "80", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	secrets, missing, short := Secrets([]string{"TOKEN", "API_KEY", "PORT", "NOPE", "EMPTY"}, []string{"API_KEY=given-with-env", "API_KEY=given-last"}, lookup)
	want := map[string]string{"TOKEN": "from-the-environment", "API_KEY": "given-last"}
	if len(secrets) != len(want) {
		t.Fatalf("got %v, want %v", secrets, want)
	}
	for _, s := range secrets {
		if want[s.Name] != s.Value {
			t.Errorf("%s = %q, want %q", s.Name, s.Value, want[s.Name])
		}
	}
	if secrets[0].Name != "TOKEN" {
		t.Errorf("the longest value is not first: %v", secrets)
	}
	if strings.Join(missing, ",") != "NOPE,EMPTY" || strings.Join(short, ",") != "PORT" {
		t.Errorf("missing %v, short %v; want [NOPE EMPTY], [PORT]", missing, short)
	}
}

func TestJSON(t *testing.T) {
	secrets := []Secret{{"TOKEN", `s3cr3t"/ü`}, {"KEY", "abcd1234"}}
	b64 := base64.StdEncoding.EncodeToString([]byte("\xff\xfe key abcd1234 here"))
	in := `{"text":"the token is s3cr3t\"/ü","line":"{\"jsonrpc\":\"2.0\",\"result\":{\"t\":\"s3cr3t\\\"/\\u00fc\"}}","abcd1234":[1,2.50,"abcd1234x"],"b64":"` + b64 + `","n":12345678901234567890}`
	out, err := JSON([]byte(in), secrets)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, leak := range []string{"s3cr3t", "abcd1234"} {
		if strings.Contains(s, leak) {
			t.Errorf("%q left in %s", leak, s)
		}
	}
	for _, want := range []string{`"the token is [redacted:TOKEN]"`, `"[redacted:KEY]":[1,2.50,"[redacted:KEY]x"]`, `12345678901234567890`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in %s", want, s)
		}
	}
	if strings.Count(s, "[redacted:TOKEN]") != 2 {
		t.Errorf("the JSON-escaped value inside a recorded line is left: %s", s)
	}
	if strings.Contains(s, b64) {
		t.Errorf("the base64 line is left as it was")
	}
}
