//go:build !linux

package transport

import (
	"fmt"
	"os"
	"os/exec"
)

// SuperviseCommand is the hidden subcommand under which a program that
// calls SuperviseWith runs Supervise.
const SuperviseCommand = "__supervise-server"

// SuperviseWith does nothing here: the supervisor needs Linux (a
// subreaper and /proc). A server outlives this process if this process is
// killed outright.
func SuperviseWith(argv []string) {}

func supervised(cmd *exec.Cmd) (s *exec.Cmd, keep *os.File, closeAfter []*os.File, status *os.File, err error) {
	return cmd, nil, nil, nil, nil
}

// Supervise is not available here.
func Supervise(args []string) int {
	fmt.Fprintln(os.Stderr, SuperviseCommand+": needs Linux")
	return 2
}
