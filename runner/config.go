package main

import (
	"fmt"
	"github.com/mcpconform/mcpconform/wire"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/vectors"
)

// prepareSelection parses --only and --skip into o and loads --baseline (nil
// without one), checking both against the catalogue of the checks that will
// run (files, or the embedded vectors when nil): a selector or an entry that
// names no check is a configuration error, found before anything runs.
func prepareSelection(o *options, files []*vectors.File) (*baseline.Baseline, error) {
	if files == nil {
		var err error
		if files, err = vectors.Embedded(); err != nil {
			return nil, err
		}
	}
	checks := listChecks(files)
	var err error
	if o.onlySel, err = parseSelectors("only", o.only); err != nil {
		return nil, err
	}
	if o.skipSel, err = parseSelectors("skip", o.skip); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		flag string
		sel  []selector
	}{{"only", o.onlySel}, {"skip", o.skipSel}} {
		if s, bad := unmatchedSelector(x.sel, checks); bad {
			hint := "mcpconform list --checks shows them"
			if near := nearestSelector(s, checks); near != "" {
				hint = "did you mean " + near + "? " + hint
			}
			return nil, fmt.Errorf("--%s %q matches no check id, requirement id, level, area or label; %s", x.flag, s.text, hint)
		}
	}
	if o.baseline == "" {
		return nil, nil
	}
	return loadBaseline(o.baseline, checks)
}

// loadBaseline loads the baseline at path and checks that its entries name
// checks, areas and protocol versions that exist.
func loadBaseline(path string, checks []checkEntry) (*baseline.Baseline, error) {
	bl, err := baseline.Load(path)
	if err != nil {
		return nil, err
	}
	ids, areas, versions := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range checks {
		ids[c.ID], areas[c.Area] = true, true
	}
	for _, v := range wire.AllVersions {
		versions[v] = true
	}
	if err := bl.CheckNames(ids, areas, versions); err != nil {
		return nil, err
	}
	return bl, nil
}
