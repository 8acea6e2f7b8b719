package evidence

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/transcript"
)

// TestHTTPExchanges: the events and messages of interleaved exchanges are
// tied by exchange number and by the event each message follows; a GET
// carries its tag on its own entry; an event cut short delivers nothing.
func TestHTTPExchanges(t *testing.T) {
	tr, err := transcript.ParseText(`
# {"httpRequest":{"exchange":1,"method":"POST","url":"http://127.0.0.1:1/mcp","header":[{"name":"Mcp-Session-Id","value":"s"}]}}
>@d:tools/list {"jsonrpc":"2.0","id":1,"method":"tools/list"}
#@p:http-get {"httpRequest":{"exchange":2,"method":"GET","url":"http://127.0.0.1:1/mcp"}}
# {"httpResponse":{"exchange":1,"status":200,"header":[{"name":"content-type","value":"text/event-stream; charset=utf-8"}]}}
# {"httpResponse":{"exchange":2,"status":200,"header":[{"name":"Content-Type","value":"text/event-stream"}]}}
# {"sseEvent":{"exchange":2,"id":"g0","message":true}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
# {"sseEvent":{"exchange":1,"id":"e0","message":true,"unterminated":true}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
# {"httpBody":{"exchange":1,"response":true,"len":0,"end":true}}
# {"httpRequest":{"exchange":3,"method":"POST","url":"http://127.0.0.1:1/mcp"}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# {"httpResponse":{"exchange":3,"status":202}}
# {"httpRequest":{"exchange":4,"method":"POST","url":"http://127.0.0.1:1/mcp"}}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
# {"httpResponse":{"exchange":4,"status":200,"header":[{"name":"Content-Type","value":"application/json"}]}}
< {"jsonrpc":"2.0","id":2,"result":{}}
`)
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{Transcript: tr}
	if !p.SpeaksHTTP() {
		t.Fatal("a transcript of HTTP exchanges does not speak HTTP")
	}
	type view struct {
		N                        int
		Tag, Method, Media, Sess string
		Status                   int
		Request, Notices         bool
		Received, Delivered      int
		Ended                    bool
	}
	var got []view
	for _, x := range p.HTTPExchanges() {
		got = append(got, view{x.N, x.Tag, x.Method(), x.MediaType(), x.SessionID(), x.Status(), x.HasRequest(), x.OnlyNotices(), len(x.Received), len(x.Messages()), x.Ended})
	}
	want := []view{
		{1, "d:tools/list", "POST", "text/event-stream", "s", 200, true, false, 1, 0, true},
		{2, "p:http-get", "GET", "text/event-stream", "", 200, false, false, 1, 1, false},
		{3, "", "POST", "", "", 202, false, true, 0, 0, false},
		{4, "", "POST", "application/json", "", 200, true, false, 1, 1, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("exchanges (-want +got):\n%s", d)
	}
	xs := p.HTTPExchanges()
	if m, _ := xs[3].Answer([]byte("2")); m == nil {
		t.Error("the ping's JSON body does not answer it")
	}
	if m, _ := xs[0].Answer([]byte("1")); m != nil {
		t.Error("a response in an event cut short answers its request")
	}
}
