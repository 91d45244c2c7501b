// Package importer brings fixtures and results from public data files into
// the stream through the editor, so imported data obeys the same rules as
// hand edits. Each format is a parser that reads a file into one shape (a
// source: seasons of competitions with their teams and matches, each match
// with its line in the file, and the points deductions and squads the
// file lists); one writer writes that shape. Adding a format means
// writing a parser and registering it in Formats. A format's read parses a document
// fetched whole (a feed's body) as well as a file's bytes: Parse reads
// one, ImportDoc writes it as Import writes files.
//
// Teams are matched by name through the name mapping kept in the stream;
// competitions by league and season; fixtures by their source (file and
// match). Each of these natural keys is claimed with compare-and-set, so
// any number of importers running at once end with every entity once, and
// importing the same file again publishes nothing.
package importer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// source is what a parser reads from one file.
type source struct {
	path string
	// format prefixes the Source of every fixture it imports; fixtures
	// of the same competition from another format are foreign.
	format     string
	seasons    []*parsedFile
	deductions []deduction
	// squads are the squads a file lists (Football.TXT squads), written
	// for teams the stream knows by name.
	squads   []parsedSquad
	rejected []Rejection
	// warnings are what the parser found suspicious but read.
	warnings []Warning
}

// deduction is a points deduction a file lists: of the team of a name, in
// the competition of one of the leagues (a tier may have several divisions)
// in the season starting in year.
type deduction struct {
	line    int
	team    string
	leagues []model.LeagueCode
	year    int
	points  int
	reason  string
}

// Options select and override what is read from files.
type Options struct {
	// League and Season override the league code and season start year
	// read from a file's path (openfootball).
	League model.LeagueCode
	Season int
	// From and To bound the seasons imported, as start years, both
	// included; 0 leaves a bound open (engsoccerdata).
	From, To int
	// Aliases map spellings a file uses to the name of the team they
	// mean (ReadAliases); the spellings are recorded for the team.
	Aliases map[string]string
	// Strict makes warnings errors: a file with any is not imported.
	Strict bool
	// Now is when results are expected up to: a match before it without
	// one is a warning (zero: no such check).
	Now time.Time
	// HoldUnknownTeams creates no team: a match of a name no team has
	// (after Aliases and the spellings the stream records) is held back,
	// and the name listed in Summary.HeldBack. A feed sets it unless it
	// may create teams, so that a spelling it does not know never becomes
	// a second club.
	HoldUnknownTeams bool
	// Country is the nationality of the players a squad file lists
	// without a country code (Football.TXT leaves out the league's own);
	// empty: the country of the league the file's heading names.
	Country string
	// Input is how files are read: their encoding and size limit.
	Input datafile.Options
}

func (o Options) includes(season int) bool {
	return (o.From == 0 || season >= o.From) && (o.To == 0 || season <= o.To)
}

// Format is a kind of data file the importer reads.
type Format struct {
	Name string
	// Files lists the files to import for the paths an editor gave (a
	// format may take folders), in the order to import them.
	Files func(paths []string) ([]string, error)
	// parse reads one file; leagues describes a league code (built in,
	// added by an editor, or unknown: an Invalid error). Nil: a file is
	// read whole and given to read.
	parse func(path string, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error)
	// read parses a document fetched whole (a feed's body); name is
	// where it came from, a URL's path or a file's, which may name its
	// league and season as a file's path does. Nil: the format is read
	// from files only.
	read func(name string, body []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error)
}

// Fetchable reports whether a feed can follow the format: whether it
// reads a document fetched whole.
func (f Format) Fetchable() bool { return f.read != nil }

// Formats are the formats the importer reads, by name.
var Formats = map[string]Format{
	"openfootball":      {Name: "openfootball", Files: plainFiles, parse: parseOpenFootball, read: readOpenFootball},
	"engsoccerdata":     {Name: "engsoccerdata", Files: engSoccerFiles, parse: parseEngSoccerFile, read: readEngSoccerFile},
	"football-data":     {Name: "football-data", Files: filesWith(".csv"), read: readFootballData},
	"footballcsv":       {Name: "footballcsv", Files: filesWith(".csv"), read: readFootballCSV},
	"squads":            {Name: "squads", Files: filesWith(".txt"), read: readSquads},
	"openligadb":        {Name: "openligadb", Files: filesWith(".json"), read: readOpenLigaDB},
	"football-data-org": {Name: "football-data-org", Files: filesWith(".json"), read: readFootballDataOrg},
}

func plainFiles(paths []string) ([]string, error) { return paths, nil }

// parseFile reads the file at path with f: as the format reads files when
// it has a way of its own, else whole, given to its read.
func (f Format) parseFile(path string, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	// A file that is not there is said to be missing, before whatever
	// its path would say of its league or season.
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, invalidFile("no such file")
	}
	if f.parse != nil {
		return f.parse(path, opts, leagues)
	}
	raw, err := opts.Input.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return f.read(path, raw, opts, leagues)
}

// Importer imports files one after another, sharing what it learnt of the
// stream (team names, competitions) between them.
type Importer struct {
	ed       *editor.Editor
	progress io.Writer
	names    map[string]int // normalised team name → team id
	comps    map[string]int // "PL/2015" → competition id
	// created are the competitions this import created, each with the
	// format of all the fixtures written into it so far: those are the
	// fixtures it holds, whose ids their sources' claims give and whose
	// states compare-and-set meets, so a file of that format does not
	// scan for them (a scan reads every fixture of the stream).
	created map[int]string
	// persons resolves the scorers of goals, read from the stream when
	// the first file with goals is written.
	persons *editor.Persons
	Summary Summary
}

// New returns an importer writing through ed. progress, if not nil,
// receives a progress bar (pass the terminal, or nil when not on one).
func New(ed *editor.Editor, progress io.Writer) *Importer {
	return &Importer{ed: ed, progress: progress}
}

// Import imports files of format f. The files are parsed ahead, several
// at once, and written in groups: a group's teams are claimed in one
// round, its competitions in one, its fixtures' sources in one, and its
// fixtures queued on the one batch that carries the fixtures of every file,
// so that the round trips of a group cost what one file's did. The next
// group is parsed while this one is written. A file that cannot be read or
// breaks a rule is listed as rejected and taken out of its group, and the
// import goes on with the others; the checks of its teams and
// competitions run before anything of the group is written, but a league
// registered for it, and the teams and competitions claimed for it before
// a later step rejects it, stay. A claim of the group's that the editor
// refuses is tried again file by file, so that it rejects only its file.
// An error that is not the files' (the stream gone) stops the import and
// is returned; a failure of the batch of fixtures names the file whose
// write failed.
func (im *Importer) Import(ctx context.Context, f Format, paths []string, opts Options) error {
	// The parsers are waited for after they are cancelled: a writer that
	// stops early leaves them blocked on files nobody takes.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return im.importFiles(ctx, &wg, im.parseAhead(ctx, &wg, f, paths, opts), opts)
}

// Doc is a document fetched whole (a feed's body), parsed and checked,
// not yet written: its reader looks at it (Matches) before ImportDoc
// writes it, or does not.
type Doc struct{ fl *file }

// Matches counts the matches the document lists, those that break a rule
// included.
func (d *Doc) Matches() int {
	n := 0
	for _, pf := range d.fl.src.seasons {
		n += len(pf.matches)
	}
	return n
}

// Schedule is what a document says of when its matches are played: what
// a live feed's follower polls by.
type Schedule struct {
	// InPlay counts the matches in play.
	InPlay int
	// NextKickoff is the earliest kick-off after now of a match not yet
	// in play (zero: none).
	NextKickoff time.Time
	// Matchday is the round to poll: that of the first match in play,
	// else of the next kick-off (0: the document has none).
	Matchday int
}

// Schedule reads the document's schedule as of now.
func (d *Doc) Schedule(now time.Time) Schedule {
	var s Schedule
	for _, pf := range d.fl.src.seasons {
		for _, pm := range pf.matches {
			switch {
			case pm.status.Live():
				if s.InPlay == 0 {
					s.Matchday = pm.matchday
				}
				s.InPlay++
			case (pm.status == model.Timed || pm.status == model.Scheduled) && pm.kickoff.After(now) &&
				(s.NextKickoff.IsZero() || pm.kickoff.Before(s.NextKickoff)):
				s.NextKickoff = pm.kickoff
				if s.InPlay == 0 {
					s.Matchday = pm.matchday
				}
			}
		}
	}
	return s
}

// Parse reads body, a document of format f fetched from name (a URL's
// path or a file's, which may name its league and season). A document
// that is not the format is an Invalid error.
func (im *Importer) Parse(ctx context.Context, f Format, name string, body []byte, opts Options) (*Doc, error) {
	if f.read == nil {
		return nil, model.Invalidf("format", f.Name, "is read from files only, not from a fetched document")
	}
	// A fetched body is text as a file is: its encoding decoded or
	// refused, a byte order mark skipped, its size bounded.
	body, err := opts.Input.ReadAll(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	src, err := f.read(name, body, opts, func(code model.LeagueCode) (model.League, error) { return im.ed.League(ctx, code) })
	if err != nil {
		return nil, err
	}
	fl := &file{path: name, src: src, aliased: applyAliases(src, opts.Aliases), warnings: warnings(src, opts)}
	return &Doc{fl: fl}, nil
}

// ImportDoc writes a document Parse read, as Import writes a file.
func (im *Importer) ImportDoc(ctx context.Context, d *Doc, opts Options) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan *file, 1)
	next <- d.fl
	close(next)
	return im.importFiles(ctx, &wg, next, opts)
}

// importFiles writes the files parsed into next, in order: Import's
// writer.
func (im *Importer) importFiles(ctx context.Context, wg *sync.WaitGroup, next <-chan *file, opts Options) error {
	// What the stream knows of team names and competitions is read while
	// the first files are parsed.
	var loadErr error
	loading := make(chan struct{})
	wg.Go(func() {
		defer close(loading)
		loadErr = im.load(ctx)
	})
	loaded := func() error {
		<-loading
		return loadErr
	}
	batch := im.ed.Batch()
	var written []*file // the files whose fixtures may still be on their way
	for group := range groups(next) {
		var files []*file
		for _, fl := range group {
			im.Summary.Files++
			fl.hold = opts.HoldUnknownTeams
			err := fl.err
			if err == nil {
				err = im.check(fl, opts)
			}
			if err = im.settle(fl, err); err != nil {
				return err
			}
			if fl.err == nil {
				files = append(files, fl)
			}
		}
		written = slices.DeleteFunc(written, func(fl *file) bool { return fl.queued == 0 })
		written = append(written, files...)
		if err := im.write(ctx, batch, files, written, loaded); err != nil {
			return err
		}
	}
	if err := batch.Flush(ctx); err != nil {
		return failedFile(written, fmt.Errorf("write the fixtures: %w", err))
	}
	return ctx.Err()
}

// file is one file on its way through an import.
type file struct {
	path string
	src  *source
	// err is why the file is not written further: its own (Invalid, a
	// rejection) or the stream's.
	err error
	// aliased are the spellings an alias renamed, each with the name it
	// stands for, to be recorded; warnings are what the data checks found.
	aliased  map[string]string
	warnings []Warning
	// fresh are the names of its teams nobody had when its group began,
	// knownTeams counts the others.
	fresh      []string
	knownTeams int
	teamIDs    map[string]int
	// drafts are its seasons' competitions as the file describes them,
	// claimedComps what the claims of those the import did not know gave.
	drafts       []model.Competition
	claimedComps []editor.ClaimedCompetition
	comps        []*model.Competition
	existed      map[int]bool
	kept         [][]parsedMatch
	claimed      []editor.Claimed
	bar          *bar
	// queued counts its fixtures queued on the batch whose outcome has
	// not come yet.
	queued int
	// hold: names no team has are not created, their matches are held
	// back (Options.HoldUnknownTeams).
	hold bool
}

// settle records err as fl's: a file's own error (Invalid) rejects it,
// any other is returned, naming the file, and stops the import.
func (im *Importer) settle(fl *file, err error) error {
	fl.err = err
	switch {
	case err == nil:
		return nil
	case model.ErrorCode(err) == model.Invalid:
		im.Summary.reject(Rejection{File: fl.path, Err: err})
		return nil
	}
	return fmt.Errorf("%s: %w", fl.path, err)
}

// failedFile names in err the file whose write failed: the batch fails
// when one of its messages cannot be written, which may be a fixture of a
// file queued before the one being written; the first file with fixtures
// still on their way is the one whose message failed first.
func failedFile(written []*file, err error) error {
	for _, fl := range written {
		if fl.queued > 0 {
			return fmt.Errorf("%s: %w", fl.path, err)
		}
	}
	return err
}

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
		for fl := range next {
			var keys []string
			if fl.src != nil {
				for _, pf := range fl.src.seasons {
					keys = append(keys, string(pf.league.Code)+"/"+strconv.Itoa(pf.year))
				}
			}
			if slices.ContainsFunc(keys, func(k string) bool { return seasons[k] }) {
				if !yield(group) {
					return
				}
				group, matches = nil, 0
				clear(seasons)
			}
			group = append(group, fl)
			for _, k := range keys {
				seasons[k] = true
			}
			if fl.src != nil {
				for _, pf := range fl.src.seasons {
					matches += len(pf.matches)
				}
			}
			if matches >= groupMatches {
				if !yield(group) {
					return
				}
				group, matches = nil, 0
				clear(seasons)
			}
		}
		if len(group) > 0 {
			yield(group)
		}
	}
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

// historicTeam is the id of the team name spells when the historic table
// gives the spelling a club whose team the stream has.
func (im *Importer) historicTeam(name string) (int, bool) {
	id, ok := model.HistoricTeamID(name)
	if !ok {
		return 0, false
	}
	for _, known := range im.names {
		if known == id {
			return id, true
		}
	}
	return 0, false
}

// prepare registers the leagues of a file's seasons and checks what its
// teams and competitions will be, before anything of it is written: the
// names nobody has are drafts of teams, and each season is a draft of its
// competition (with stand-in ids for the teams, which only need to be
// valid and distinct).
func (im *Importer) prepare(ctx context.Context, fl *file) error {
	for _, pf := range fl.src.seasons {
		l, err := im.ensureLeague(ctx, pf.league)
		if err != nil {
			return fmt.Errorf("league %s: %w", pf.league.Code, err)
		}
		pf.league = l
	}
	fl.teamIDs = map[string]int{}
	standIn := map[string]int{}
	unplaced := map[string]bool{}
	for _, pf := range fl.src.seasons {
		for _, pm := range pf.matches {
			for _, name := range []string{pm.home, pm.away} {
				if _, done := fl.teamIDs[name]; done || name == "" {
					continue
				}
				fl.teamIDs[name] = 0
				if pm.stage == model.Playoff && placeholderRE.MatchString(name) {
					continue
				}
				// Known or not, the name is checked: one that only
				// looks like a known one is that team by its key,
				// and must not reach the fixtures' sources.
				if err := (&model.Team{Name: name}).ValidateDraft(); err != nil {
					return fmt.Errorf("team %q: %w", name, err)
				}
				if id, ok := im.names[model.NormalizeTeamName(name)]; ok {
					standIn[name] = len(standIn) + 1
					fl.teamIDs[name] = id
					fl.knownTeams++
					continue
				}
				// A spelling of a club the historic table knows, whose
				// team the stream has under another spelling ("Man
				// United" of 66, Manchester United FC), is no unknown
				// name: the writer joins it to that team, as a name of
				// it, and creates none.
				if _, placed := im.historicTeam(name); fl.hold && !placed {
					unplaced[name] = true
					continue
				}
				standIn[name] = len(standIn) + 1
				fl.fresh = append(fl.fresh, name)
			}
		}
	}
	if len(unplaced) > 0 {
		im.holdBack(fl, unplaced)
	}
	for _, pf := range fl.src.seasons {
		draft := draftOf(pf, standIn)
		draft.SetDefaults()
		if err := draft.ValidateDraft(); err != nil {
			return fmt.Errorf("competition %s: %w", draft.Key(), err)
		}
	}
	return nil
}

// holdBack takes the matches of names no team has out of a file's
// seasons, counting them by name in the summary, and drops the seasons
// left without a match.
func (im *Importer) holdBack(fl *file, unplaced map[string]bool) {
	if im.Summary.HeldBack == nil {
		im.Summary.HeldBack = map[string]int{}
	}
	seasons := fl.src.seasons[:0]
	for _, pf := range fl.src.seasons {
		kept := pf.matches[:0]
		for _, pm := range pf.matches {
			if !unplaced[pm.home] && !unplaced[pm.away] {
				kept = append(kept, pm)
				continue
			}
			im.Summary.Fixtures.HeldBack++
			for _, name := range []string{pm.home, pm.away} {
				if unplaced[name] {
					im.Summary.HeldBack[name]++
				}
			}
		}
		pf.matches = kept
		if len(kept) > 0 {
			seasons = append(seasons, pf)
		}
	}
	fl.src.seasons = seasons
}

// ensureLeague registers a league code beyond the appendix that a file's
// format describes, unless it is known.
func (im *Importer) ensureLeague(ctx context.Context, l model.League) (model.League, error) {
	if l.Name == "" {
		return im.ed.League(ctx, l.Code)
	}
	ch, known, err := im.ed.EnsureLeague(ctx, l)
	if err == nil && ch.Action == editor.Created {
		im.Summary.Leagues.add(ch.Action)
	}
	return known, err
}

// placeholderRE matches knock-out placeholders such as "W49", "1A", "2B/3C"
// and "N.N." (not yet known).
var placeholderRE = regexp.MustCompile(`^(?:[WL]\d+|[123][A-L](?:/[A-L0-9]+)*|Winner .*|Loser .*|TBD|N\.N\.)$`)

// resolveTeams maps every team name of the files to a team id, creating
// the teams nobody has yet, those of every file at once. Placeholders of
// knock-out rounds map to 0. The spellings aliased stood for other names
// in a file: they are recorded as spellings of those names' teams.
func (im *Importer) resolveTeams(ctx context.Context, files []*file) ([]*file, error) {
	for _, fl := range files {
		im.Summary.Teams.Unchanged += fl.knownTeams
	}
	files, err := im.eachOnRefusal(files, func(files []*file) error { return im.claimTeams(ctx, files) })
	if err != nil {
		return nil, err
	}
	return im.each(files, func(_ int, fl *file) error {
		for name, to := range fl.aliased {
			// A squad's team is no team of the file's matches: it is
			// one the stream knows, or its squad is refused.
			id := fl.teamIDs[to]
			if id == 0 {
				if id = im.names[model.NormalizeTeamName(to)]; id == 0 {
					continue
				}
			}
			if _, err := im.ed.PutTeamName(ctx, name, id); err != nil {
				return fmt.Errorf("alias %q of %q: %w", name, to, err)
			}
			im.names[model.NormalizeTeamName(name)] = id
		}
		return nil
	})
}

// eachOnRefusal runs claim for the files at once. A rule it reports
// broken (Invalid) is one file's, but which one the call does not say: the
// files are then claimed one after the other, as when each was written
// alone, and the file refused is rejected while the others go on. It
// returns the files not rejected, or the first error that is not a file's
// own.
func (im *Importer) eachOnRefusal(files []*file, claim func([]*file) error) ([]*file, error) {
	err := claim(files)
	switch {
	case err == nil:
		return files, nil
	case model.ErrorCode(err) != model.Invalid:
		return nil, err
	case len(files) == 1:
		return im.each(files, func(int, *file) error { return err })
	}
	return im.each(files, func(_ int, fl *file) error { return claim([]*file{fl}) })
}

// claimTeams claims the names of the files' teams that nobody had when
// their group began and the import has not met since, in one call.
func (im *Importer) claimTeams(ctx context.Context, files []*file) error {
	var fresh []string
	mentions := 0 // of fresh names, by every file
	seen := map[string]bool{}
	for _, fl := range files {
		mentions += len(fl.fresh)
		for _, name := range fl.fresh {
			norm := model.NormalizeTeamName(name)
			if _, known := im.names[norm]; !known && !seen[norm] {
				seen[norm] = true
				fresh = append(fresh, name)
			}
		}
	}
	if mentions == 0 {
		return nil
	}
	var created []string
	if len(fresh) > 0 {
		got, made, err := im.ed.TeamsByName(ctx, fresh)
		if err != nil {
			return fmt.Errorf("claim %d new team names: %w", len(fresh), err)
		}
		for name, id := range got {
			im.names[model.NormalizeTeamName(name)] = id
		}
		created = made
	}
	// A name new to several files is created by the first, as when
	// they were written one after the other.
	im.Summary.Teams.Created += len(created)
	im.Summary.Teams.Unchanged += mentions - len(created)
	for _, fl := range files {
		for _, name := range fl.fresh {
			fl.teamIDs[name] = im.names[model.NormalizeTeamName(name)]
		}
	}
	return nil
}

// ReadAliases reads a CSV file of team spellings, `spelling,team`, as in
// says: each line maps a spelling a file uses to the name of the team it
// means.
func ReadAliases(path string, in datafile.Options) (map[string]string, error) {
	f, err := in.Open(path)
	if err != nil {
		return nil, model.Invalidf("aliases", path, "%v", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	header, err := r.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, aliasesError(path, err)
	}
	if len(header) != 2 || header[0] != "spelling" || header[1] != "team" {
		return nil, model.Invalidf("aliases", path, "must start with the header spelling,team")
	}
	out := map[string]string{}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, aliasesError(path, err)
		}
		line, _ := r.FieldPos(0)
		if len(row) != 2 || model.NormalizeTeamName(row[0]) == "" || model.NormalizeTeamName(row[1]) == "" {
			return nil, model.Invalidf("aliases", path, "line %d: want a spelling and the team's name", line)
		}
		for _, name := range row {
			if err := model.CheckText("name", name, model.MaxName); err != nil {
				return nil, model.Invalidf("aliases", path, "line %d: %v", line, err)
			}
		}
		out[model.NormalizeTeamName(row[0])] = strings.TrimSpace(row[1])
	}
}

// aliasesError is the error of an aliases file that stops being read: the
// reader's own when it refused the file (its size, its encoding), else the
// file is not CSV.
func aliasesError(path string, err error) error {
	if model.ErrorCode(err) == model.Invalid {
		return model.Invalidf("aliases", path, "%v", err)
	}
	return model.Invalidf("aliases", path, "is not CSV: %v", err)
}

// competitions finds or creates the competitions of the files' seasons
// and adds each season's teams and matchdays to its competition. The
// seasons nobody had when the group began are claimed together, those of
// every file in one call (a season in two files is claimed by the first,
// and the second adds to it, as when they were written one after the
// other).
func (im *Importer) competitions(ctx context.Context, files []*file) ([]*file, error) {
	for _, fl := range files {
		fl.drafts = make([]model.Competition, len(fl.src.seasons))
		fl.claimedComps = make([]editor.ClaimedCompetition, len(fl.src.seasons))
		for i, pf := range fl.src.seasons {
			fl.drafts[i] = draftOf(pf, fl.teamIDs)
		}
	}
	files, err := im.eachOnRefusal(files, func(files []*file) error { return im.claimCompetitions(ctx, files) })
	if err != nil {
		return nil, err
	}
	return im.each(files, func(_ int, fl *file) error {
		fl.comps = make([]*model.Competition, len(fl.src.seasons))
		fl.existed = map[int]bool{}
		for i, pf := range fl.src.seasons {
			c, found, err := im.competition(ctx, fl.src.format, pf, fl.drafts[i], fl.claimedComps[i])
			if err != nil {
				return err
			}
			fl.comps[i], fl.existed[c.ID] = c, found
		}
		return nil
	})
}

// claimCompetitions claims the seasons of the files that the import does
// not know, in one call (a season twice in a file is claimed once).
func (im *Importer) claimCompetitions(ctx context.Context, files []*file) error {
	var fresh []model.Competition
	type at struct {
		file   *file
		season int
	}
	var claimedAt []at // the season of each of fresh
	freshKeys := map[string]bool{}
	for _, fl := range files {
		for i, draft := range fl.drafts {
			key := draft.Key()
			if _, ok := im.comps[key]; !ok && !freshKeys[key] {
				freshKeys[key] = true
				fresh = append(fresh, draft)
				claimedAt = append(claimedAt, at{fl, i})
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	got, err := im.ed.ClaimCompetitions(ctx, fresh)
	if err != nil {
		return fmt.Errorf("claim %d competitions: %w", len(fresh), err)
	}
	for j, a := range claimedAt {
		a.file.claimedComps[a.season] = got[j]
	}
	return nil
}

// draftOf is the competition a season describes.
func draftOf(pf *parsedFile, teamIDs map[string]int) model.Competition {
	var teams []model.CompetitionTeam
	seen := map[int]bool{}
	for _, pm := range pf.matches {
		if pm.stage != model.Regular && pf.kind != model.TypeCup {
			continue
		}
		for _, name := range []string{pm.home, pm.away} {
			if id := teamIDs[name]; id != 0 && !seen[id] {
				seen[id] = true
				teams = append(teams, model.CompetitionTeam{TeamID: id, Group: pf.groups[name]})
			}
		}
	}
	sort.Slice(teams, func(i, j int) bool { return teams[i].TeamID < teams[j].TeamID })
	draft := model.Competition{Caption: pf.caption, League: pf.league.Code, Year: pf.year, Type: pf.kind,
		NumberOfMatchdays: pf.matchdays, Teams: teams}
	if pf.rules != nil {
		draft.Rules = *pf.rules
	}
	return draft
}

// competition settles the competition of a season: the one its claim
// created from draft, or an existing one, to which it adds the season's
// teams and matchdays. Everything else of an existing competition
// (caption, access tier, table rules) is the editors' decision, or that of
// the source that created it: an import never changes it. claimed is the
// season's claim, zero when it was not claimed (the import knew its
// competition). found tells whether the competition may hold fixtures this
// import did not write from files of format.
func (im *Importer) competition(ctx context.Context, format string, pf *parsedFile, draft model.Competition, claimed editor.ClaimedCompetition) (*model.Competition, bool, error) {
	if claimed.ID != 0 {
		im.comps[draft.Key()] = claimed.ID
		if claimed.Created {
			im.created[claimed.ID] = format
			im.Summary.Competitions.Created++
			draft.ID = claimed.ID
			draft.SetDefaults()
			return &draft, false, nil
		}
	}
	id := im.comps[draft.Key()]
	ch, c, err := im.ed.MergeCompetition(ctx, id, func(c *model.Competition) error {
		have := map[int]bool{}
		for _, t := range c.Teams {
			have[t.TeamID] = true
		}
		for _, t := range draft.Teams {
			if !have[t.TeamID] {
				c.Teams = append(c.Teams, t)
			}
		}
		sort.Slice(c.Teams, func(i, j int) bool { return c.Teams[i].TeamID < c.Teams[j].TeamID })
		c.NumberOfMatchdays = max(c.NumberOfMatchdays, pf.matchdays)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("competition %s: %w", draft.Key(), err)
	}
	im.Summary.Competitions.add(ch.Action)
	own := im.created[id] == format
	if !own {
		// Its fixtures are no longer of one format.
		delete(im.created, id)
	}
	return c, !own, nil
}

// known is what the stream holds of a file's competitions.
type known struct {
	// bySource holds the fixtures earlier imports made, by their Source.
	bySource map[string]editor.Stored[model.Fixture]
	// foreign counts, by competition, the regular fixtures of each
	// pairing that did not come from this format (another source, or an
	// editor's hand).
	foreign map[int]map[[2]int]int
}

// fixtures loads the fixtures of the files' competitions that existed
// before the import with one scan: a scan per competition would be one
// consumer each, a thousand for a file of a thousand seasons.
func (im *Importer) fixtures(ctx context.Context, files []*file) (known, error) {
	existed := map[int]bool{}
	for _, fl := range files {
		for id, found := range fl.existed {
			existed[id] = existed[id] || found
		}
	}
	format := files[0].src.format
	k := known{bySource: map[string]editor.Stored[model.Fixture]{}, foreign: map[int]map[[2]int]int{}}
	var ids []int
	for id, found := range existed {
		if found {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return k, nil
	}
	filter := events.All(events.KindFixture)
	if len(ids) == 1 {
		filter = events.Subject(events.KindFixture, strconv.Itoa(ids[0]), "*")
	}
	err := im.ed.Store.Scan(ctx, filter, func(ev events.Event) error {
		if len(ev.Key) != 2 {
			return nil
		}
		if comp, err := strconv.Atoi(ev.Key[0]); err != nil || !existed[comp] {
			return nil
		}
		f, err := events.Decode[model.Fixture](ev.Data)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(f.Source, format+":"):
			k.bySource[f.Source] = editor.Stored[model.Fixture]{Value: f,
				Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: slices.Clone(ev.Data)}}
		case f.Stage == model.Regular:
			if k.foreign[f.CompetitionID] == nil {
				k.foreign[f.CompetitionID] = map[[2]int]int{}
			}
			k.foreign[f.CompetitionID][[2]int{f.HomeTeamID, f.AwayTeamID}]++
		}
		return nil
	})
	if err != nil {
		return k, fmt.Errorf("load fixtures of %d competitions: %w", len(ids), err)
	}
	return k, nil
}

// claimSources claims the sources of the files' matches, those of every
// file at once, after leaving out the matches another source already put
// into their competitions, and reads the fixtures of the sources claimed
// before. A competition in two files is claimed for the second once the
// first's claim is in, as when they were written one after the other.
func (im *Importer) claimSources(ctx context.Context, files []*file, k known) error {
	type at struct{ file, season int }
	var rounds [][]at
	claimedIn := map[int]int{} // competition → how many rounds claim it
	for f, fl := range files {
		matches := 0
		for _, pf := range fl.src.seasons {
			matches += len(pf.matches)
		}
		fl.bar = newBar(im.progress, fl.path, matches)
		fl.kept = make([][]parsedMatch, len(fl.src.seasons))
		fl.claimed = make([]editor.Claimed, len(fl.src.seasons))
		for i, pf := range fl.src.seasons {
			fl.kept[i] = pf.matches
			id := fl.comps[i].ID
			if foreign := k.foreign[id]; len(foreign) > 0 {
				fl.kept[i] = im.skipForeign(fl.kept[i], foreign, fl.teamIDs, fl.bar)
			}
			r := claimedIn[id]
			claimedIn[id]++
			if r == len(rounds) {
				rounds = append(rounds, nil)
			}
			rounds[r] = append(rounds[r], at{f, i})
		}
	}
	var comps []*model.Competition
	var claimed []editor.Claimed
	existed := map[int]bool{}
	for _, round := range rounds {
		claims := make([]editor.SourceClaim, len(round))
		for j, a := range round {
			fl := files[a.file]
			claims[j] = sourceClaim(fl.comps[a.season].ID, fl.kept[a.season], k.bySource)
		}
		got, err := im.ed.ClaimSources(ctx, events.KindFixture, claims)
		if err != nil {
			return fmt.Errorf("claim the fixtures of %d competitions: %w", len(claims), err)
		}
		for j, a := range round {
			fl := files[a.file]
			fl.claimed[a.season] = got[j]
			comps = append(comps, fl.comps[a.season])
			claimed = append(claimed, got[j])
			id := fl.comps[a.season].ID
			existed[id] = existed[id] || fl.existed[id]
		}
	}
	return im.claimedBefore(ctx, comps, existed, claimed, k.bySource)
}

// claimedBefore reads into bySource the fixtures whose sources were
// claimed before in the competitions this import created (an earlier file
// of it has the same matches, or an import running at once): they were
// not scanned for, and without their states each would be decided again
// after losing its compare-and-set, a round trip per fixture. A
// competition with many such fixtures is read whole (a file that repeats
// another's seasons): one consumer instead of a request per fixture.
func (im *Importer) claimedBefore(ctx context.Context, comps []*model.Competition, existed map[int]bool, claimed []editor.Claimed,
	bySource map[string]editor.Stored[model.Fixture]) error {
	var keys []editor.FixtureKey
	var whole []int
	for i, c := range comps {
		switch before := claimed[i].Before; {
		case existed[c.ID] || len(before) == 0:
		case len(before) >= readWholeFrom:
			whole = append(whole, c.ID)
		default:
			for _, s := range before {
				keys = append(keys, editor.FixtureKey{Competition: c.ID, ID: claimed[i].IDs[s]})
			}
		}
	}
	if len(keys) > 0 {
		got, err := im.ed.FixturesOf(ctx, keys)
		if err != nil {
			return fmt.Errorf("load %d fixtures claimed before: %w", len(keys), err)
		}
		for _, st := range got {
			bySource[st.Value.Source] = st
		}
	}
	if err := im.competitionFixtures(ctx, whole, bySource); err != nil {
		return fmt.Errorf("load the fixtures of %d competitions: %w", len(whole), err)
	}
	return nil
}

// readWholeFrom is how many fixtures claimed before in one competition
// make reading all of its fixtures with one consumer cheaper than reading
// them one by one.
const readWholeFrom = 64

// scanConcurrency bounds the competitions read whole at once (a consumer
// each).
const scanConcurrency = 8

// competitionFixtures reads into bySource every fixture of the
// competitions ids, several competitions at once.
func (im *Importer) competitionFixtures(ctx context.Context, ids []int, bySource map[string]editor.Stored[model.Fixture]) error {
	var mu sync.Mutex
	errs := make([]error, len(ids))
	sem := make(chan struct{}, scanConcurrency)
	var wg sync.WaitGroup
	for i, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = im.ed.Store.Scan(ctx, events.Subject(events.KindFixture, strconv.Itoa(id), "*"), func(ev events.Event) error {
				f, err := events.Decode[model.Fixture](ev.Data)
				if err != nil {
					return err
				}
				st := editor.Stored[model.Fixture]{Value: f, Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: slices.Clone(ev.Data)}}
				mu.Lock()
				bySource[f.Source] = st
				mu.Unlock()
				return nil
			})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// skipForeign drops the matches that another source already put into the
// competition, so that a season imported from two sources is not counted
// twice: as many of a pairing's matches as the other source holds are
// left to it.
func (im *Importer) skipForeign(ms []parsedMatch, foreign map[[2]int]int, teamIDs map[string]int, bar *bar) []parsedMatch {
	kept := make([]parsedMatch, 0, len(ms))
	for _, pm := range ms {
		pair := [2]int{teamIDs[pm.home], teamIDs[pm.away]}
		if pm.stage == model.Regular && foreign[pair] > 0 {
			foreign[pair]--
			im.Summary.Fixtures.Unchanged++
			bar.step()
			continue
		}
		kept = append(kept, pm)
	}
	return kept
}

// sourceClaim is the claim of the sources of a competition's matches ms
// (those that parsed), existing the fixtures found in the stream.
func sourceClaim(comp int, ms []parsedMatch, existing map[string]editor.Stored[model.Fixture]) editor.SourceClaim {
	c := editor.SourceClaim{Competition: comp, Stored: map[string]int{}}
	for _, pm := range ms {
		if pm.err != nil {
			continue
		}
		c.Sources = append(c.Sources, pm.source)
		if st, ok := existing[pm.source]; ok {
			c.Stored[pm.source] = st.Value.ID
		}
	}
	return c
}

// resolveScorers gives the goals of the files' matches their scorers'
// person ids: each name is resolved once per team for the whole import,
// and the persons created or changed are written in one batch, before the
// fixtures that name them. A goal counts for the scorer's team, or for
// its opponent when it is an own goal.
func (im *Importer) resolveScorers(ctx context.Context, files []*file) error {
	type at struct {
		fl *file
		pm *parsedMatch
	}
	var withGoals []at
	for _, fl := range files {
		for _, ms := range fl.kept {
			for i := range ms {
				if ms[i].err == nil && len(ms[i].goals) > 0 {
					withGoals = append(withGoals, at{fl, &ms[i]})
				}
			}
		}
	}
	if len(withGoals) == 0 {
		return nil
	}
	if im.persons == nil {
		ps, err := im.ed.Persons(ctx)
		if err != nil {
			return err
		}
		im.persons = ps
	}
	team := func(a at, g model.Goal) int {
		if g.ScorerSide() == model.Home {
			return a.fl.teamIDs[a.pm.home]
		}
		return a.fl.teamIDs[a.pm.away]
	}
	for i, a := range withGoals {
		if err := im.resolveGoals(a.pm, func(g model.Goal) int { return team(a, g) }); err != nil {
			// A name that is no one's ("?"): the match is kept
			// without its goals, as one whose goals do not make its
			// score.
			im.Summary.Warnings = append(im.Summary.Warnings, Warning{File: a.fl.path, Kind: warnDetail,
				What: fmt.Sprintf("line %d, goals: %s v %s (%s): %v", a.pm.line, a.pm.home, a.pm.away, a.pm.round, err)})
			a.pm.goals = nil
		}
		if i+1 == len(withGoals) || withGoals[i+1].fl != a.fl {
			for _, w := range im.persons.Warnings() {
				im.Summary.Warnings = append(im.Summary.Warnings, Warning{File: a.fl.path, Kind: warnScorer, What: w})
			}
		}
	}
	changes, err := im.persons.Save(ctx)
	for _, ch := range changes {
		im.Summary.Persons.add(ch.Action)
	}
	if err != nil {
		return fmt.Errorf("write the scorers: %w", err)
	}
	for _, a := range withGoals {
		for i := range a.pm.goals {
			if g := &a.pm.goals[i]; !g.Anonymous() {
				g.ScorerID = im.persons.ID(team(a, *g), g.Scorer)
			}
		}
	}
	return nil
}

// resolveGoals resolves the scorers of a match's goals; a goal whose
// scorer the source does not know (a live feed's) counts for its side
// and no one.
func (im *Importer) resolveGoals(pm *parsedMatch, team func(model.Goal) int) error {
	for _, g := range pm.goals {
		if g.Anonymous() {
			continue
		}
		if err := im.persons.Resolve(team(g), g.Scorer); err != nil {
			return err
		}
	}
	return nil
}

// putFixtures queues a season's fixtures of fl on batch: new ones under
// the ids their sources claimed (ids), imported ones again (which
// publishes nothing unless the file changed).
func (im *Importer) putFixtures(ctx context.Context, batch *editor.Batch, fl *file, pf *parsedFile, ms []parsedMatch,
	c *model.Competition, existing map[string]editor.Stored[model.Fixture], ids map[string]int) error {
	reject := func(pm *parsedMatch, err error) {
		im.Summary.Fixtures.Rejected++
		im.Summary.reject(Rejection{File: fl.path, Line: pm.line, What: fmt.Sprintf("%s v %s (%s %d, %s)", pm.home, pm.away, c.League, c.Year, pm.round), Err: err})
		fl.bar.step()
	}
	// The closures below keep a pointer to the match and the stored
	// state only when there is one: copies would be an allocation per
	// fixture.
	for i := range ms {
		pm := &ms[i]
		if pm.err != nil {
			reject(pm, pm.err)
			continue
		}
		f := model.Fixture{ID: ids[pm.source], CompetitionID: c.ID, Matchday: pm.matchday, Group: pm.group, Stage: pm.stage,
			Leg: pm.leg, Round: pm.round, Kickoff: pm.kickoff, HomeTeamID: fl.teamIDs[pm.home], AwayTeamID: fl.teamIDs[pm.away],
			Status: pm.status, Result: pm.result, Awarded: pm.awarded, Odds: pm.odds, Referee: pm.referee, Source: pm.source,
			Venue: pm.venue, Goals: pm.goals, Minute: pm.minute, InjuryTime: pm.injury}
		if f.HomeTeamID == 0 {
			f.HomePlaceholder = pm.home
		}
		if f.AwayTeamID == 0 {
			f.AwayPlaceholder = pm.away
		}
		var from *editor.Stored[model.Fixture]
		if st, ok := existing[pm.source]; ok && st.Value.ID == f.ID {
			from = new(editor.Stored[model.Fixture])
			*from = st
		}
		want := func(cur *model.Fixture) ([]model.Fixture, error) {
			w := f
			if cur != nil {
				// Odds and the referee are kept when the file does
				// not give them (most formats have neither). Derived
				// matchdays are counted from the file's games, fewer in
				// a file that begins after the season did (a feed's next
				// matches): a match keeps the larger number, never one
				// of a file that saw less of the season.
				w.Odds = cmp.Or(w.Odds, cur.Odds)
				w.Referee = cmp.Or(w.Referee, cur.Referee)
				// Goals an editor recorded stay while the file has
				// none and the score they make is the file's.
				if w.Goals == nil && cur.Goals != nil && sameFinal(w.Result, cur.Result) {
					w.Goals = cur.Goals
				}
				w.Venue = cmp.Or(w.Venue, cur.Venue)
				if pf.derivedMatchdays {
					w.Matchday = max(w.Matchday, cur.Matchday)
				}
			}
			return []model.Fixture{w}, nil
		}
		fl.queued++
		err := batch.Fixture(ctx, c, f.ID, from, want, func(ch editor.Change, err error) {
			fl.queued--
			if err != nil {
				reject(pm, err)
				return
			}
			im.Summary.Fixtures.add(ch.Action)
			fl.bar.step()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sameFinal reports whether two results end with the same score (after
// extra time if there was any): the score goals make.
func sameFinal(a, b model.Result) bool {
	final := func(r model.Result) *model.Score {
		if r.ExtraTime != nil {
			return r.ExtraTime
		}
		return r.FullTime
	}
	fa, fb := final(a), final(b)
	return fa != nil && fb != nil && *fa == *fb
}

// putDeductions records a file's points deductions as adjustments of the
// competitions imported, or updates those an earlier import made: an
// imported adjustment's source is its team and reason, claimed like a
// fixture's.
func (im *Importer) putDeductions(ctx context.Context, path string, ds []deduction) error {
	if len(ds) == 0 {
		return nil
	}
	stored := map[int]map[string]int{} // competition → source → adjustment id
	err := im.ed.Store.Scan(ctx, events.All(events.KindAdjustment), func(ev events.Event) error {
		a, err := events.Decode[model.Adjustment](ev.Data)
		if stored[a.CompetitionID] == nil {
			stored[a.CompetitionID] = map[string]int{}
		}
		stored[a.CompetitionID][deductionSource(a)] = a.ID
		return err
	})
	if err != nil {
		return fmt.Errorf("load adjustments: %w", err)
	}
	reject := func(d deduction, err error) error {
		switch model.ErrorCode(err) {
		case model.Invalid, model.NotFound:
			im.Summary.Adjustments.Rejected++
			im.Summary.reject(Rejection{File: path, Line: d.line, What: fmt.Sprintf("deduction of %s %d", d.team, d.year), Err: err})
			return nil
		}
		return err
	}
	comps := map[int]*model.Competition{}
	byComp := map[int][]model.Adjustment{}
	var order []int
	for _, d := range ds {
		a, err := im.placeDeduction(ctx, d, comps)
		if err != nil {
			if err := reject(d, err); err != nil {
				return err
			}
			continue
		}
		if byComp[a.CompetitionID] == nil {
			order = append(order, a.CompetitionID)
		}
		byComp[a.CompetitionID] = append(byComp[a.CompetitionID], a)
	}
	for _, comp := range order {
		as := byComp[comp]
		var sources []string
		for _, a := range as {
			sources = append(sources, deductionSource(a))
		}
		ids, err := im.ed.SourceIDs(ctx, events.KindAdjustment, comp, sources, stored[comp])
		if err != nil {
			return err
		}
		for _, a := range as {
			a.ID = ids[deductionSource(a)]
			ch, err := im.ed.ImportAdjustment(ctx, a)
			if err != nil {
				if err := reject(deduction{team: strconv.Itoa(a.TeamID), year: comps[comp].Year}, err); err != nil {
					return err
				}
				continue
			}
			im.Summary.Adjustments.add(ch.Action)
		}
	}
	return nil
}

// placeDeduction finds the competition and team of a deduction: the
// competition of one of its leagues in its season that has the team.
func (im *Importer) placeDeduction(ctx context.Context, d deduction, comps map[int]*model.Competition) (model.Adjustment, error) {
	team, ok := im.names[model.NormalizeTeamName(d.team)]
	if !ok {
		return model.Adjustment{}, model.NotFoundf("team %q: not imported", d.team)
	}
	for _, code := range d.leagues {
		id, ok := im.comps[fmt.Sprintf("%s/%d", code, d.year)]
		if !ok {
			continue
		}
		c, ok := comps[id]
		if !ok {
			var err error
			if c, _, err = im.ed.Competition(ctx, id); err != nil {
				return model.Adjustment{}, err
			}
			comps[id] = c
		}
		if c.HasTeam(team) {
			return model.Adjustment{CompetitionID: id, TeamID: team, Points: -d.points, Reason: d.reason}, nil
		}
	}
	return model.Adjustment{}, model.NotFoundf("%s: no imported competition of %v in %d has this team", d.team, d.leagues, d.year)
}

// deductionSource is an imported adjustment's natural key: its team and
// reason within its competition.
func deductionSource(a model.Adjustment) string {
	return fmt.Sprintf("deduction|%d|%s", a.TeamID, a.Reason)
}

// bar draws a progress bar on a terminal; it is silent without one. A
// file's bar ends with its last fixture, which may be after the next
// file's writing began: the acknowledgements come in the order the
// fixtures went.
type bar struct {
	w           io.Writer
	label       string
	done, total int
	last        time.Time
}

func newBar(w io.Writer, label string, total int) *bar {
	if i := strings.LastIndex(label, "/"); i >= 0 {
		if j := strings.LastIndex(label[:i], "/"); j >= 0 {
			label = label[j+1:]
		}
	}
	return &bar{w: w, label: label, total: total}
}

func (b *bar) step() {
	b.done++
	if b.w == nil || (time.Since(b.last) < 100*time.Millisecond && b.done < b.total) {
		return
	}
	b.last = time.Now()
	const width = 30
	n := width * b.done / max(b.total, 1)
	fmt.Fprintf(b.w, "\r%-24s [%s%s] %d/%d", b.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), b.done, b.total)
	if b.done == b.total {
		fmt.Fprintln(b.w)
	}
}
