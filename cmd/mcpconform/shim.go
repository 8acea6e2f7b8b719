package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcpconform/mcpconform/internal/cliflag"
)

type listFlag struct {
	values  *[]string
	example string
}

func (l listFlag) String() string { return cliflag.List{Values: l.values, Example: l.example}.String() }
func (l listFlag) Set(v string) error {
	return cliflag.List{Values: l.values, Example: l.example}.Set(v)
}

type envFlag = cliflag.Env

func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	cliflag.DurationVar(fs, p, name, value, usage)
}

func checkDestinations(o *options, stderr io.Writer) bool {
	if err := o.out.CheckPaths(o.evidence); err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return false
	}
	return true
}
