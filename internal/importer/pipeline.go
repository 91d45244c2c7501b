package importer

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// parseLookahead bounds the files parsed ahead of the group being
// gathered, and with them the memory they hold beside that group's
// (engsoccerdata's largest file has about 200,000 matches).
const parseLookahead = 4

// parseAhead parses paths, several at once, and returns them in order,
// each when it is parsed.
func (im *Importer) parseAhead(ctx context.Context, wg *sync.WaitGroup, f Format, paths []string, opts Options) <-chan *file {
	// The parsers share an editor of their own, behind a lock: an Editor
	// is not safe for concurrent use, and they only read league codes.
	lookup := &editor.Editor{Store: im.ed.Store}
	var mu sync.Mutex
	leagues := func(code model.LeagueCode) (model.League, error) {
		mu.Lock()
		defer mu.Unlock()
		return lookup.League(ctx, code)
	}
	parsed := make([]chan *file, len(paths))
	for i := range parsed {
		parsed[i] = make(chan *file, 1)
	}
	sem := make(chan struct{}, max(1, min(runtime.GOMAXPROCS(0), parseLookahead)))
	ahead := make(chan struct{}, parseLookahead)
	wg.Go(func() {
		for i, path := range paths {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				// Aliases and checks are the file's alone: they are
				// applied here too, several files at once.
				fl := &file{path: path}
				fl.src, fl.err = f.parseFile(path, opts, leagues)
				if fl.err == nil {
					fl.aliased = applyAliases(fl.src, opts.Aliases)
					fl.warnings = warnings(fl.src, opts)
				}
				parsed[i] <- fl
			})
		}
	})
	next := make(chan *file)
	wg.Go(func() {
		defer close(next)
		for _, ch := range parsed {
			var fl *file
			select {
			case fl = <-ch:
			case <-ctx.Done():
				return
			}
			select {
			case next <- fl:
				<-ahead
			case <-ctx.Done():
				return
			}
		}
	})
	return next
}

// groupMatches is how many matches make a group of files: enough for a
// season's files of every league to be one group, few enough that a large
// archive is parsed while the group before is written.
const groupMatches = 20000

// groups gathers the files of next into groups of about groupMatches
// matches, in order. A file with a season of a file already in the group
// begins the next group: its fixtures are decided against what the
// earlier file wrote (as claimed before, see claimedBefore), which a
// group's claims, made before any of its fixtures is written, would not
// find, and each would lose its compare-and-set and be decided again
// (engsoccerdata's germany2.csv repeats germany.csv's second tier).
func groups(next <-chan *file) iter.Seq[[]*file] {
	return func(yield func([]*file) bool) {
		var group []*file
		matches := 0
		seasons := map[string]bool{}
		flush := func() bool {
			ok := yield(group)
			group, matches = nil, 0
			clear(seasons)
			return ok
		}
		for fl := range next {
			keys := seasonKeys(fl)
			if slices.ContainsFunc(keys, func(k string) bool { return seasons[k] }) && !flush() {
				return
			}
			group = append(group, fl)
			for _, k := range keys {
				seasons[k] = true
			}
			matches += fileMatches(fl)
			if matches >= groupMatches && !flush() {
				return
			}
		}
		if len(group) > 0 {
			yield(group)
		}
	}
}

// seasonKeys names the seasons of a parsed file (none for a file that did
// not parse), as LEAGUE/YEAR.
func seasonKeys(fl *file) []string {
	if fl.src == nil {
		return nil
	}
	keys := make([]string, 0, len(fl.src.seasons))
	for _, pf := range fl.src.seasons {
		keys = append(keys, string(pf.league.Code)+"/"+strconv.Itoa(pf.year))
	}
	return keys
}

// fileMatches counts a parsed file's matches.
func fileMatches(fl *file) int {
	if fl.src == nil {
		return 0
	}
	n := 0
	for _, pf := range fl.src.seasons {
		n += len(pf.matches)
	}
	return n
}

func (im *Importer) load(ctx context.Context) error {
	if im.names != nil {
		return nil
	}
	im.names, im.comps, im.created = map[string]int{}, map[string]int{}, map[int]string{}
	err := im.ed.Store.Scan(ctx, events.All(events.KindTeamName), func(ev events.Event) error {
		tn, err := events.Decode[model.TeamName](ev.Data)
		// A spelling claimed under an older key (before invisible
		// characters were dropped from it) is not the claim of its key
		// today, which may be another team's.
		if ev.Subject == events.TeamNameSubject(tn.Name) {
			im.names[model.NormalizeTeamName(tn.Name)] = tn.TeamID
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("load team names: %w", err)
	}
	err = im.ed.Store.Scan(ctx, events.All(events.KindCompetition), func(ev events.Event) error {
		c, err := events.Decode[model.Competition](ev.Data)
		im.comps[c.Key()] = c.ID
		return err
	})
	if err != nil {
		return fmt.Errorf("load competitions: %w", err)
	}
	return nil
}

// warnings applies the data checks to every season of a source, after
// the parser's own: first the details a match cannot keep (dropped), then
// what looks wrong in a season.
func warnings(src *source, opts Options) []Warning {
	ws := src.warnings
	for _, pf := range src.seasons {
		ws = append(ws, checkDetails(pf)...)
		ws = append(ws, checkSeason(pf, opts.Now)...)
	}
	return ws
}

// check keeps the warnings of a file; with opts.Strict a warning refuses
// the file.
func (im *Importer) check(fl *file, opts Options) error {
	im.Summary.Warnings = append(im.Summary.Warnings, fl.warnings...)
	if opts.Strict && len(fl.warnings) > 0 {
		return invalidFile("%d warning(s), listed above, and --strict makes them errors", len(fl.warnings))
	}
	return nil
}

// applyAliases renames the teams of src that aliases (by normalised
// spelling) maps to another name, and returns the spellings used, each
// with the name it stands for.
func applyAliases(src *source, aliases map[string]string) map[string]string {
	used := map[string]string{}
	if len(aliases) == 0 {
		return used
	}
	rename := func(name *string) {
		if to, ok := aliases[model.NormalizeTeamName(*name)]; ok && model.NormalizeTeamName(to) != model.NormalizeTeamName(*name) {
			used[*name] = to
			*name = to
		}
	}
	for _, pf := range src.seasons {
		for i := range pf.matches {
			rename(&pf.matches[i].home)
			rename(&pf.matches[i].away)
		}
		for name, g := range pf.groups {
			if to, ok := used[name]; ok {
				pf.groups[to] = g
			}
		}
	}
	for i := range src.deductions {
		rename(&src.deductions[i].team)
	}
	for i := range src.squads {
		rename(&src.squads[i].team)
	}
	return used
}

// write writes the files of a group, queueing their fixtures on batch,
// once loaded says what the stream knew is read.
// Each step runs for every file of the group at once (one round of
// claims for all their teams, one for their competitions, one for their
// fixtures' sources); a file whose step fails with an error of its own is
// rejected and left out of the steps after (what earlier steps wrote for
// it stays: see Import). written are the files with fixtures on batch, of
// which a failure of the batch names the first (failedFile).
func (im *Importer) write(ctx context.Context, batch *editor.Batch, group []*file, written []*file, loaded func() error) error {
	files := im.withData(group)
	if len(files) == 0 {
		return nil
	}
	if err := loaded(); err != nil {
		return err
	}
	// Each step may reject every file left, and the next needs one.
	files, err := im.each(files, func(_ int, fl *file) error { return im.prepare(ctx, fl) })
	if err != nil || len(files) == 0 {
		return err
	}
	if files, err = im.resolveTeams(ctx, files); err != nil || len(files) == 0 {
		return err
	}
	if files, err = im.competitions(ctx, files); err != nil || len(files) == 0 {
		return err
	}
	known, err := im.fixtures(ctx, files)
	if err != nil {
		return err
	}
	if err := im.claimSources(ctx, files, known); err != nil {
		return err
	}
	if err := im.resolveScorers(ctx, files); err != nil {
		return err
	}
	for _, fl := range files {
		if err := im.putFile(ctx, batch, fl, known, written); err != nil {
			return err
		}
	}
	return nil
}

// withData counts the rejections of the group's files and returns those
// left with something to write.
func (im *Importer) withData(group []*file) []*file {
	var files []*file
	for _, fl := range group {
		for _, r := range fl.src.rejected {
			if fl.src.format == squadsFormat {
				im.Summary.Squads.Rejected++
			} else {
				im.Summary.Fixtures.Rejected++
			}
			im.Summary.reject(r)
		}
		if len(fl.src.seasons) > 0 || len(fl.src.deductions) > 0 || len(fl.src.squads) > 0 {
			files = append(files, fl)
		}
	}
	return files
}

// putFile writes one prepared file: its seasons' fixtures and
// disciplinary points, its deductions, its squads.
func (im *Importer) putFile(ctx context.Context, batch *editor.Batch, fl *file, known known, written []*file) error {
	for i, pf := range fl.src.seasons {
		if err := im.putFixtures(ctx, batch, fl, pf, fl.kept[i], fl.comps[i], known.bySource, fl.claimed[i].IDs); err != nil {
			return failedFile(written, err)
		}
		if err := im.putDisciplinary(ctx, fl.path, pf, fl.comps[i], fl.teamIDs); err != nil {
			return fmt.Errorf("%s: %w", fl.path, err)
		}
	}
	if err := im.putDeductions(ctx, fl.path, fl.src.deductions); err != nil {
		return fmt.Errorf("%s: %w", fl.path, err)
	}
	if err := im.putSquads(ctx, fl.path, fl.src.squads); err != nil {
		return fmt.Errorf("%s: %w", fl.path, err)
	}
	return nil
}

// each runs step for every file and returns the files it did not reject,
// or the first error that is not a file's own.
func (im *Importer) each(files []*file, step func(i int, fl *file) error) ([]*file, error) {
	kept := files[:0]
	for i, fl := range files {
		if err := im.settle(fl, step(i, fl)); err != nil {
			return nil, err
		}
		if fl.err == nil {
			kept = append(kept, fl)
		}
	}
	return kept, nil
}
