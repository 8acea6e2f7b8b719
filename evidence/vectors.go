package evidence

import (
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// VectorMark is the probe name of a vector test's marks.
func VectorMark(test string) string { return "v:" + test }

// ItemObs is one item of a vector test as it ran in one process: one
// execution of its steps (a test with foreach runs once per item).
type ItemObs struct {
	Test    string
	Item    int
	Process *Process
	// Version is the version the process spoke when the item began.
	Version string
	// Mark is the item's opening mark: its label, bindings, and why it was
	// skipped or could not run.
	Mark       transcript.Mark
	Begin, End int
	// Closed is false when the run stopped inside the item.
	Closed bool
	Steps  []*StepObs
	// Alive is the liveness request sent after the steps, if any.
	Alive *Exchange
}

// StepObs is what one step of an item sent and what answered it.
type StepObs struct {
	Index   int
	SentSeq int
	// Exchange is the request the step sent (nil for a notification, or a
	// line that was no valid request).
	Exchange *Exchange
	// Reply is the response taken to answer a notification or raw line.
	Reply *Reply
}

// VectorItems returns the items of a vector test in every process of the
// run, in process order.
func (r *Run) VectorItems(test string) []*ItemObs {
	var out []*ItemObs
	for _, p := range r.AllProcesses() {
		out = append(out, p.VectorItems(test)...)
	}
	return out
}

// VectorItems returns the items of a vector test that ran in this process.
func (p *Process) VectorItems(test string) []*ItemObs {
	var out []*ItemObs
	entries := p.Entries()
	for _, sp := range p.MarkSpans(VectorMark(test)) {
		it := &ItemObs{Test: test, Item: sp.Mark.Item, Process: p, Begin: sp.From, End: sp.To, Closed: sp.To < len(entries)}
		// The opening mark holds the bindings and reasons; the span keeps
		// the closing one.
		if sp.From < len(entries) && entries[sp.From].Event != nil && entries[sp.From].Event.Mark != nil {
			it.Mark = *entries[sp.From].Event.Mark
		} else {
			it.Mark = sp.Mark
		}
		if it.Mark.Err == "" {
			it.Mark.Err = sp.Mark.Err // a harness problem is known at the end
		}
		if it.Mark.Skip == "" {
			it.Mark.Skip = sp.Mark.Skip
		}
		_, it.Version = p.EraAt(sp.From)
		prefix := "v:" + test + "#" + itoa(sp.Mark.Item) + "."
		for _, e := range entries[sp.From:min(sp.To+1, len(entries))] {
			if e.Dir != transcript.Send || !strings.HasPrefix(e.Tag, prefix) {
				continue
			}
			step := e.Tag[len(prefix):]
			if step == "alive" {
				if xs := p.SentAt(e.Seq); len(xs) > 0 {
					it.Alive = xs[0]
				}
				continue
			}
			so := &StepObs{Index: atoi(step), SentSeq: e.Seq, Reply: p.ReplyTo(e.Seq)}
			if xs := p.SentAt(e.Seq); len(xs) > 0 {
				so.Exchange = xs[0]
			}
			it.Steps = append(it.Steps, so)
		}
		// A request never written (the process had gone, the method was
		// hung) exists only as an exchange with its tag.
		for _, x := range p.TaggedPrefix(prefix) {
			if x.SentSeq >= 0 {
				continue
			}
			if strings.HasSuffix(x.Tag, ".alive") {
				it.Alive = x
				continue
			}
			it.Steps = append(it.Steps, &StepObs{Index: atoi(x.Tag[len(prefix):]), SentSeq: -1, Exchange: x})
		}
		out = append(out, it)
	}
	return out
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// Duration is how long the item took, from its opening mark to its
// closing one (zero when either is missing).
func (it *ItemObs) Duration() time.Duration {
	if it.Process == nil || it.Process.Transcript == nil || it.End <= it.Begin {
		return 0
	}
	es := it.Process.Transcript.Slice(it.Begin, it.End+1)
	if len(es) < 2 {
		return 0
	}
	// In whole microseconds, as saved evidence keeps times: a run judged
	// again from its evidence gives the same durations.
	return es[len(es)-1].At.Truncate(time.Microsecond) - es[0].At.Truncate(time.Microsecond)
}
