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
// importing the same file again publishes nothing. A feed's document
// (Options.Feed) decides the fields of fixtures an editor or another
// source changed by one rule, the later change wins (disagree.go).
package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/editor"
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
	// Feed names the feed whose document is written (empty: an
	// editor's import, whose values are written as they are). A feed's
	// fields are decided by the rule of disagree.go, from the
	// Disagreements its last document left and what its source Said of
	// the fixtures other sources made, by fixture and field; the new
	// ones are the Summary's.
	Feed          string
	Disagreements []Disagreement
	Said          map[int]map[string]string
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
	// merge decides a feed's fields (nil: not a feed's import).
	merge   *merger
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
	body, err := opts.Input.Text(body)
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
	if opts.Feed != "" {
		im.merge = newMerger(opts.Feed, opts.Disagreements, opts.Said)
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
	if im.merge != nil {
		im.Summary.Disagreements, im.Summary.Said = im.merge.result()
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
	// teamKeys are the source's ids of its teams, by name, where it has
	// them (parsedMatch.homeKey).
	teamKeys map[string]string
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
