// Command gencompat writes docs/compat.md, the compatibility matrix of
// mcpconform against real MCP servers, from the golden files of
// internal/compat/testdata:
//
//	go test ./internal/compat -update   # re-run the suite, rewrite the golden files
//	go run ./internal/compat/gencompat  # render docs/compat.md from them
//
// It finds the module root from the working directory, so it runs from any
// folder of the repository. TestCompatDocUpToDate fails when the document
// and the golden files disagree.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpconform/mcpconform/internal/compat"
)

func main() {
	testdata := flag.String("testdata", "", "folder of the golden files (default: internal/compat/testdata of the module)")
	out := flag.String("out", "", "file to write (default: docs/compat.md of the module; - for stdout)")
	flag.Parse()
	if err := run(*testdata, *out); err != nil {
		fmt.Fprintf(os.Stderr, "gencompat: %v\n", err)
		os.Exit(1)
	}
}

func run(testdata, out string) error {
	if testdata == "" || out == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		if testdata == "" {
			testdata = filepath.Join(root, "internal", "compat", "testdata")
		}
		if out == "" {
			out = filepath.Join(root, "docs", "compat.md")
		}
	}
	var buf bytes.Buffer
	if err := compat.RenderDoc(&buf, testdata); err != nil {
		return err
	}
	if out == "-" {
		_, err := os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// moduleRoot walks up from the working directory to the folder holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the mcpconform module (no go.mod above the working directory)")
		}
		dir = parent
	}
}
