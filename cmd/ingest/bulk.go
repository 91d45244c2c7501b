package main

import (
	"context"
	"fmt"
	"os"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/pkg/model"
)

func generateWorld(ctx context.Context, e *env, args []string) error {
	fs := e.flags("generate")
	var cfg generate.Config
	seed := fs.Uint64("seed", 1, "seed: the same seed gives the same world")
	fs.IntVar(&cfg.Fixtures, "fixtures", 0, "generate whole seasons until at least this many fixtures exist")
	fs.IntVar(&cfg.Leagues, "leagues", 0, "number of leagues (default 4, or enough for --fixtures in about 20 seasons)")
	fs.IntVar(&cfg.Seasons, "seasons", 0, "seasons per league (default 2; ignored with --fixtures)")
	fs.IntVar(&cfg.FirstYear, "first-year", 0, "start year of the first season (default 2000)")
	fs.IntVar(&cfg.TournamentEvery, "tournament-every", 0, "a 32-team tournament every N seasons (default 4; -1 for none)")
	fs.IntVar(&cfg.LiveMatches, "live", 0, "fixtures of the last season published as live edit streams")
	fs.IntVar(&cfg.ExtraEdits, "extra-edits", 0, "extra revisions of every fixture before its final state")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if e.ed.DryRun {
		return usagef("generate has no dry run: point it at a scratch stream instead")
	}
	cfg.Seed = *seed
	cfg.Meta = e.ed.Meta
	sum, err := generate.Run(ctx, e.ed.Store, cfg, e.terminal)
	if err != nil {
		return err
	}
	sum.Print(e.stdout)
	return nil
}

func importEngSoccer(ctx context.Context, e *env, args []string) error {
	fs := e.flags("import engsoccerdata")
	from := fs.Int("from", 0, "first season (start year) to import")
	to := fs.Int("to", 0, "last season (start year) to import")
	paths, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("want the data-raw folder of engsoccerdata, or match files")
	}
	opts := importer.EngSoccerOptions{From: *from, To: *to}
	var files []string
	deductions := ""
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			ms, d, err := importer.EngSoccerFiles(p)
			if err != nil {
				return err
			}
			files, deductions = append(files, ms...), d
			continue
		}
		files = append(files, p)
	}
	im := importer.New(e.ed, e.terminal)
	for _, f := range files {
		if err := im.EngSoccer(ctx, f, opts); err != nil && model.ErrorCode(err) != model.Invalid {
			im.Summary.Print(e.stdout, e.ed.DryRun)
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	if deductions != "" {
		if err := im.EngSoccerDeductions(ctx, deductions, opts); err != nil && model.ErrorCode(err) != model.Invalid {
			return fmt.Errorf("%s: %w", deductions, err)
		}
	}
	im.Summary.Print(e.stdout, e.ed.DryRun)
	if n := len(im.Summary.Rejected); n > 0 {
		return model.Invalidf("import", "", "%d rejection(s) in %d file(s), listed above; everything else was imported", n, countFiles(im.Summary.Rejected))
	}
	return nil
}
