package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/pkg/model"
)

// importFlags registers a format's own flags into opts.
type importFlags func(fs *flag.FlagSet, opts *importOpts)

type importOpts struct {
	league  string
	season  int
	from    int
	to      int
	country string
	verbose bool
	strict  bool
	aliases string
	now     string
	input   datafile.Options
}

func openFootballFlags(fs *flag.FlagSet, o *importOpts) {
	fs.StringVar(&o.league, "league", "", "league code (default: from the file name, e.g. en.1 is PL)")
	fs.IntVar(&o.season, "season", 0, "season start year (default: from the folder name, e.g. 2015-16)")
}

func csvFlags(fs *flag.FlagSet, o *importOpts) {
	fs.StringVar(&o.league, "league", "", "league code (default: the Div column, or the file's name, e.g. E0.csv or eng.1.csv is PL)")
	fs.IntVar(&o.season, "season", 0, "season start year (default: the file's folder, e.g. 1516 or 2015-16, else its first match's season)")
}

func squadFlags(fs *flag.FlagSet, o *importOpts) {
	fs.StringVar(&o.country, "country", "", "nationality of the players listed without a country code (default: the country of the league the heading names)")
}

func engSoccerFlags(fs *flag.FlagSet, o *importOpts) {
	fs.IntVar(&o.from, "from", 0, "first season (start year) to import")
	fs.IntVar(&o.to, "to", 0, "last season (start year) to import")
}

// fileFlags registers how a command reads the files it is given.
func fileFlags(fs *flag.FlagSet, in *datafile.Options) {
	fs.Var(&in.Encoding, "encoding", "character `ENCODING` of the files: utf-8, latin1 or windows-1252 (a file that starts with a UTF-8 byte-order mark is read as UTF-8)")
	fs.Var(&in.MaxSize, "max-file-size", "largest `SIZE` of a file, e.g. 512KiB, 64MiB or 1GiB: a larger one is refused")
}

// importCommand is the one runner of every `import FORMAT` command: the
// same progress bar, summary and exit codes whatever the format. It exits
// 2 when anything was rejected (everything else is imported), 1 when the
// stream failed.
func importCommand(format, args, summary, example string, formatFlags importFlags) command {
	var o importOpts
	return command{name: "import " + format, args: args, summary: summary, example: example,
		flags: func(fs *flag.FlagSet) {
			formatFlags(fs, &o)
			fs.BoolVar(&o.verbose, "verbose", false, "list every rejection and warning, not the first few of each reason")
			fs.BoolVar(&o.strict, "strict", false, "make warnings errors: a file with any is not imported")
			fs.StringVar(&o.now, "now", "", "RFC 3339 `TIME` up to which results are expected: earlier matches without one are warned of (default: now)")
			fs.StringVar(&o.aliases, "aliases", "", "CSV `FILE` of spelling,team lines mapping spellings the files use to the team they mean")
			fileFlags(fs, &o.input)
		},
		run: func(ctx context.Context, e *env, paths []string) error {
			if len(paths) == 0 {
				return usagef("want one or more files to import")
			}
			opts := importer.Options{Season: o.season, From: o.from, To: o.to, Country: o.country, Strict: o.strict, Now: time.Now(), Input: o.input}
			if o.now != "" {
				var err error
				if opts.Now, err = parseTime("now", o.now); err != nil {
					return err
				}
			}
			if o.aliases != "" {
				var err error
				if opts.Aliases, err = importer.ReadAliases(o.aliases, o.input); err != nil {
					return err
				}
			}
			if o.league != "" {
				var err error
				if opts.League, err = model.ParseLeagueCode(o.league); err != nil {
					return err
				}
			}
			f := importer.Formats[format]
			files, err := f.Files(paths)
			if err != nil {
				return err
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			im := importer.New(ed, e.terminal)
			// A file refused as invalid is listed in the summary;
			// anything else (the stream gone) stops the import.
			err = im.Import(ctx, f, files, opts)
			im.Summary.Print(e.stdout, ed.DryRun, o.verbose)
			if err != nil {
				return err
			}
			switch n := len(im.Summary.Rejected); {
			case n == 1:
				return &model.Error{Code: model.Invalid, Message: im.Summary.Rejected[0].String()}
			case n > 1:
				return &model.Error{Code: model.Invalid, Message: fmt.Sprintf("%d rejection(s) in %d file(s), grouped above; everything else was imported",
					n, im.Summary.RejectedFiles())}
			}
			return nil
		}}
}

func generateWorld() command {
	var cfg generate.Config
	var seed uint64
	return command{name: "generate", args: "[--seed N] [--fixtures N | --leagues N --seasons N] [--live N] [--extra-edits N]",
		summary: "publish a synthetic world, deterministic from the seed (benchmarks, demos); into a stream without those seasons",
		example: "ingest generate --seed 1 --fixtures 1000000",
		flags: func(fs *flag.FlagSet) {
			fs.Uint64Var(&seed, "seed", 1, "seed: the same seed gives the same world")
			fs.IntVar(&cfg.Fixtures, "fixtures", 0, "generate whole seasons until at least this many fixtures exist")
			fs.IntVar(&cfg.Leagues, "leagues", 0, fmt.Sprintf("number of leagues (default %d, or enough for --fixtures in about 20 seasons)", generate.DefaultLeagues))
			fs.IntVar(&cfg.Seasons, "seasons", 0, fmt.Sprintf("seasons per league (default %d; ignored with --fixtures)", generate.DefaultSeasons))
			fs.IntVar(&cfg.FirstYear, "first-year", 0, fmt.Sprintf("start year of the first season (default %d)", generate.DefaultFirstYear))
			fs.IntVar(&cfg.TournamentEvery, "tournament-every", 0, fmt.Sprintf("a 32-team tournament every N seasons (default %d; -1 for none)", generate.DefaultTournamentEvery))
			fs.IntVar(&cfg.LiveMatches, "live", 0, "fixtures of the last season published as live edit streams")
			fs.IntVar(&cfg.ExtraEdits, "extra-edits", 0, "extra revisions of every fixture before its final state")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			if e.global.dryRun {
				return usagef("generate has no dry run: point it at a scratch stream instead")
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			cfg.Seed = seed
			cfg.Meta = ed.Meta
			sum, err := generate.Run(ctx, ed.Store, cfg, e.terminal)
			if err != nil {
				return err
			}
			sum.Print(e.stdout)
			return nil
		}}
}
