// Package cliflag holds the flag values the command's option types share:
// lists, KEY=VALUE pairs and durations whose parse errors show a valid
// use, so that a mistyped flag costs one line of reading, not a run.
package cliflag

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// List collects a repeatable flag into *Values; a value may also be
// comma-separated. A value that names nothing (--only "", --fault ",") is
// an error: it would otherwise silently select everything or nothing.
type List struct {
	Values  *[]string
	Example string // a valid use, for the error message
}

func (l List) String() string {
	if l.Values == nil {
		return ""
	}
	return strings.Join(*l.Values, ",")
}

// Set adds the names of v.
func (l List) Set(v string) error {
	n := 0
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l.Values = append(*l.Values, p)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("empty; write e.g. %s", l.Example)
	}
	return nil
}

// Env collects repeatable KEY=VALUE pairs.
type Env []string

func (e *Env) String() string { return strings.Join(*e, " ") }

// Set adds the pair v.
func (e *Env) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// duration is a time.Duration flag whose parse errors say how to write
// one: "10" gets "write --timeout 10s".
type duration struct {
	d    *time.Duration
	name string
}

func (f duration) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f duration) Set(v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err == nil {
		*f.d = d
		return nil
	}
	if _, nerr := strconv.ParseFloat(strings.TrimSpace(v), 64); nerr == nil {
		return fmt.Errorf("a duration needs a unit; write --%s %ss", f.name, strings.TrimSpace(v))
	}
	return fmt.Errorf("not a duration; write e.g. --%s 10s (units: ms, s, m, h)", f.name)
}

// DurationVar defines a duration flag on fs, as fs.DurationVar does, whose
// parse errors show a valid use.
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(duration{p, name}, name, usage)
}
