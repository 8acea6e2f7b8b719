package listing

import (
	"flag"
	"io"

	"github.com/mcpconform/mcpconform/vectors"
)

// Options say which listing `mcpconform list` writes: the requirements
// (by default), the checks of server mode, or those of client mode; as
// text or as JSON.
type Options struct {
	JSON, Checks, Client bool
}

// RegisterFlags defines the flags of o on fs: --json, --checks and
// --client.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.JSON, "json", false, "print JSON: {requirements: [...], checks: [...], clientChecks: [...]}")
	fs.BoolVar(&o.Checks, "checks", false, "list checks (id, requirement, level, spec) instead of requirements")
	fs.BoolVar(&o.Client, "client", false, "list the checks of client mode (mcpconform client), with their spec links")
}

// Write writes the listing o asks for of the checks of files (the vector
// files of server mode) and of client mode to w, the text wrapped at
// width; only the JSON can fail to be written.
func (o Options) Write(w io.Writer, files []*vectors.File, width int) error {
	checks, clientChecks := Checks(files), ClientChecks()
	switch {
	case o.JSON:
		return WriteJSON(w, checks, clientChecks)
	case o.Client:
		WriteClientChecks(w, clientChecks, width)
	case o.Checks:
		WriteChecks(w, checks, width)
	default:
		WriteRequirements(w, append(checks, clientChecks...), width)
	}
	return nil
}
