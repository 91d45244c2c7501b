package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// tables sets what a competition's table needs besides results: its rules
// (a JSON file of model.TableRules, - for stdin), the teams' disciplinary
// points and the coefficient order. What is not given stays as it was.
func tables(ctx context.Context, e *env, args []string) error {
	fs := e.flags("tables")
	comp := fs.Int("competition", 0, "competition id")
	rulesFile := fs.String("rules", "", "table rules as JSON: a file, or - for stdin")
	disciplinary := fs.String("disciplinary", "", "disciplinary points, TEAM:POINTS comma separated (POINTS - removes a team's)")
	coefficients := fs.String("coefficients", "", "team ids, highest coefficient first, comma separated")
	source := fs.String("source", "", "where the figures come from")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if !set["rules"] && !set["disciplinary"] && !set["coefficients"] && !set["source"] {
		return usagef("want --rules, --disciplinary, --coefficients or --source")
	}
	if set["rules"] {
		rules, err := readRules(e.stdin, *rulesFile)
		if err != nil {
			return err
		}
		ch, err := e.ed.PutTableRules(ctx, *comp, rules)
		if err != nil {
			return err
		}
		e.print(ch)
	}
	if !set["disciplinary"] && !set["coefficients"] && !set["source"] {
		return nil
	}
	d, _, err := e.ed.TieBreakData(ctx, *comp)
	if err != nil {
		return err
	}
	if set["disciplinary"] {
		if d.Disciplinary, err = mergeDisciplinary(d.Disciplinary, *disciplinary); err != nil {
			return err
		}
	}
	if set["coefficients"] {
		if d.Coefficients, err = intList("coefficients", *coefficients); err != nil {
			return err
		}
	}
	if set["source"] {
		d.Source = *source
	}
	ch, err := e.ed.PutTieBreakData(ctx, d)
	if err == nil {
		e.print(ch)
	}
	return err
}

// readRules reads table rules from a file or stdin, refusing unknown fields
// so that a misspelt one is not silently dropped.
func readRules(stdin io.Reader, path string) (model.TableRules, error) {
	var rules model.TableRules
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return rules, model.Invalidf("rules", path, "cannot be read: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		return rules, model.Invalidf("rules", path, "must be table rules as JSON: %v", err)
	}
	return rules, nil
}

// mergeDisciplinary applies "TEAM:POINTS,…" to the points held.
func mergeDisciplinary(held map[int]int, s string) (map[int]int, error) {
	out := map[int]int{}
	for team, points := range held {
		out[team] = points
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		t, p, ok := strings.Cut(part, ":")
		team, err := strconv.Atoi(t)
		if !ok || err != nil || team <= 0 {
			return nil, model.Invalidf("disciplinary", part, "must be TEAM:POINTS with a positive team id")
		}
		if p == "-" {
			delete(out, team)
			continue
		}
		points, err := strconv.Atoi(p)
		if err != nil {
			return nil, model.Invalidf("disciplinary", part, "points must be a whole number, or - to remove")
		}
		out[team] = points
	}
	return out, nil
}
