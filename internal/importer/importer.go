// Package importer brings fixtures and results from public data files into
// the stream through the editor, so imported data obeys the same rules as
// hand edits. Each format is a parser that reads a file into one shape (a
// source: seasons of competitions with their teams and matches, each match
// with its line in the file, and the points deductions the file lists);
// one writer writes that shape. Adding a format means writing a parser.
//
// Teams are matched by name through the name mapping kept in the stream;
// competitions by league and season; fixtures by their source (file and
// match). Each of these natural keys is claimed with compare-and-set, so
// any number of importers running at once end with every entity once, and
// importing the same file again publishes nothing.
package importer

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

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
	rejected   []Rejection
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
	// added by an editor, or unknown: an Invalid error).
	parse func(path string, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error)
}

// Formats are the formats the importer reads, by name.
var Formats = map[string]Format{
	"openfootball":  {Name: "openfootball", Files: plainFiles, parse: parseOpenFootball},
	"engsoccerdata": {Name: "engsoccerdata", Files: engSoccerFiles, parse: parseEngSoccerFile},
}

func plainFiles(paths []string) ([]string, error) { return paths, nil }

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
	Summary Summary
}

// New returns an importer writing through ed. progress, if not nil,
// receives a progress bar (pass the terminal, or nil when not on one).
func New(ed *editor.Editor, progress io.Writer) *Importer {
	return &Importer{ed: ed, progress: progress}
}

// Import imports files of format f, parsing the next file while the
// current one is written, and claiming the next file's teams,
// competitions and sources while the current one's fixtures are on their
// way: one batch carries the fixtures of every file. A file that cannot
// be read is listed as rejected and the import goes on with the next; an
// error that is not the files' (the stream gone) stops it and is returned.
func (im *Importer) Import(ctx context.Context, f Format, paths []string, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type parsed struct {
		path string
		src  *source
		err  error
	}
	// The parser has an editor of its own: an Editor is not safe for
	// concurrent use, and it only reads league codes.
	lookup := &editor.Editor{Store: im.ed.Store}
	next := make(chan parsed, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		defer close(next)
		for _, path := range paths {
			src, err := f.parse(path, opts, func(code model.LeagueCode) (model.League, error) { return lookup.League(ctx, code) })
			select {
			case next <- parsed{path, src, err}:
			case <-ctx.Done():
				return
			}
		}
	})
	batch := im.ed.Batch()
	for p := range next {
		im.Summary.Files++
		err := p.err
		var aliased map[string]string
		if err == nil {
			aliased = applyAliases(p.src, opts.Aliases)
			err = im.check(p.src, opts)
		}
		if err == nil {
			err = im.write(ctx, batch, p.src, aliased)
		}
		switch {
		case model.ErrorCode(err) == model.Invalid:
			im.Summary.reject(Rejection{File: p.path, Err: err})
		case err != nil:
			return fmt.Errorf("%s: %w", p.path, err)
		}
	}
	if err := batch.Flush(ctx); err != nil {
		return fmt.Errorf("write the fixtures: %w", err)
	}
	return ctx.Err()
}

func (im *Importer) load(ctx context.Context) error {
	if im.names != nil {
		return nil
	}
	im.names, im.comps, im.created = map[string]int{}, map[string]int{}, map[int]string{}
	err := im.ed.Store.Scan(ctx, events.All(events.KindTeamName), func(ev events.Event) error {
		tn, err := events.Decode[model.TeamName](ev.Data)
		im.names[model.NormalizeTeamName(tn.Name)] = tn.TeamID
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

// check applies the data checks to every season of a source, keeping the
// warnings; with opts.Strict a warning refuses the file.
func (im *Importer) check(src *source, opts Options) error {
	var ws []Warning
	for _, pf := range src.seasons {
		ws = append(ws, checkSeason(pf, opts.Now)...)
	}
	im.Summary.Warnings = append(im.Summary.Warnings, ws...)
	if opts.Strict && len(ws) > 0 {
		return invalidFile("%d warning(s), listed above, and --strict makes them errors", len(ws))
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
	return used
}

// write writes what a parser read, queueing its fixtures on batch;
// aliased are the spellings an alias renamed, each with the name it stands
// for, to be recorded.
func (im *Importer) write(ctx context.Context, batch *editor.Batch, src *source, aliased map[string]string) error {
	for _, r := range src.rejected {
		im.Summary.Fixtures.Rejected++
		im.Summary.reject(r)
	}
	if len(src.seasons) == 0 && len(src.deductions) == 0 {
		return nil
	}
	if err := im.load(ctx); err != nil {
		return err
	}
	for _, pf := range src.seasons {
		l, err := im.ensureLeague(ctx, pf.league)
		if err != nil {
			return fmt.Errorf("league %s: %w", pf.league.Code, err)
		}
		pf.league = l
	}
	teamIDs, err := im.resolveTeams(ctx, src.seasons, aliased)
	if err != nil {
		return err
	}
	comps, existed, err := im.competitions(ctx, src.format, src.seasons, teamIDs)
	if err != nil {
		return err
	}
	known, err := im.fixtures(ctx, src.format, existed)
	if err != nil {
		return err
	}
	matches := 0
	for _, pf := range src.seasons {
		matches += len(pf.matches)
	}
	bar := newBar(im.progress, src.path, matches)
	kept := make([][]parsedMatch, len(src.seasons))
	claims := make([]editor.SourceClaim, len(src.seasons))
	for i, pf := range src.seasons {
		kept[i] = pf.matches
		if foreign := known.foreign[comps[i].ID]; len(foreign) > 0 {
			kept[i] = im.skipForeign(kept[i], foreign, teamIDs, bar)
		}
		claims[i] = sourceClaim(comps[i].ID, kept[i], known.bySource)
	}
	claimed, err := im.ed.ClaimSources(ctx, events.KindFixture, claims)
	if err != nil {
		return fmt.Errorf("claim the fixtures of %d competitions: %w", len(claims), err)
	}
	if err := im.claimedBefore(ctx, comps, existed, claimed, known.bySource); err != nil {
		return err
	}
	for i, pf := range src.seasons {
		if err := im.putFixtures(ctx, batch, src.path, pf, kept[i], comps[i], known.bySource, teamIDs, claimed[i].IDs, bar); err != nil {
			return err
		}
	}
	return im.putDeductions(ctx, src.path, src.deductions)
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

// resolveTeams maps every team name of the seasons to a team id, creating the teams
// nobody has yet. Placeholders of knock-out rounds map to 0. The spellings
// aliased stood for other names in the file: they are recorded as
// spellings of those names' teams.
func (im *Importer) resolveTeams(ctx context.Context, seasons []*parsedFile, aliased map[string]string) (map[string]int, error) {
	ids := map[string]int{}
	var fresh []string
	for _, pf := range seasons {
		for _, pm := range pf.matches {
			for _, name := range []string{pm.home, pm.away} {
				if _, done := ids[name]; done || name == "" {
					continue
				}
				ids[name] = 0
				if pm.stage == model.Playoff && placeholderRE.MatchString(name) {
					continue
				}
				if id, ok := im.names[model.NormalizeTeamName(name)]; ok {
					ids[name] = id
					im.Summary.Teams.Unchanged++
					continue
				}
				fresh = append(fresh, name)
			}
		}
	}
	if err := im.createTeams(ctx, fresh, ids); err != nil {
		return nil, err
	}
	for name, to := range aliased {
		if _, err := im.ed.PutTeamName(ctx, name, ids[to]); err != nil {
			return nil, fmt.Errorf("alias %q of %q: %w", name, to, err)
		}
		im.names[model.NormalizeTeamName(name)] = ids[to]
	}
	return ids, nil
}

// createTeams creates the teams of names, which nobody had when the import
// began, all at once, and records their ids.
func (im *Importer) createTeams(ctx context.Context, fresh []string, ids map[string]int) error {
	if len(fresh) == 0 {
		return nil
	}
	got, created, err := im.ed.TeamsByName(ctx, fresh)
	if err != nil {
		return err
	}
	for name, id := range got {
		ids[name], im.names[model.NormalizeTeamName(name)] = id, id
	}
	im.Summary.Teams.Created += len(created)
	im.Summary.Teams.Unchanged += len(fresh) - len(created)
	return nil
}

// ReadAliases reads a CSV file of team spellings, `spelling,team`: each
// line maps a spelling a file uses to the name of the team it means.
func ReadAliases(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, model.Invalidf("aliases", path, "cannot be read: %v", errors.Unwrap(err))
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		return nil, model.Invalidf("aliases", path, "is not CSV: %v", err)
	}
	if len(rows) == 0 || len(rows[0]) != 2 || rows[0][0] != "spelling" || rows[0][1] != "team" {
		return nil, model.Invalidf("aliases", path, "must start with the header spelling,team")
	}
	out := map[string]string{}
	for i, row := range rows[1:] {
		if len(row) != 2 || model.NormalizeTeamName(row[0]) == "" || model.NormalizeTeamName(row[1]) == "" {
			return nil, model.Invalidf("aliases", path, "line %d: want a spelling and the team's name", i+2)
		}
		out[model.NormalizeTeamName(row[0])] = strings.TrimSpace(row[1])
	}
	return out, nil
}

// competitions finds or creates the competitions of seasons and adds each
// season's teams and matchdays to its competition. The seasons nobody had
// when the import began are claimed together, their round trips
// overlapping. existed tells, by competition, whether it may hold fixtures
// this import did not write from files of format.
func (im *Importer) competitions(ctx context.Context, format string, seasons []*parsedFile, teamIDs map[string]int) ([]*model.Competition, map[int]bool, error) {
	drafts := make([]model.Competition, len(seasons))
	var fresh []model.Competition
	var claimedAt []int // the season of each of fresh
	freshKeys := map[string]bool{}
	for i, pf := range seasons {
		drafts[i] = draftOf(pf, teamIDs)
		key := drafts[i].Key()
		if _, ok := im.comps[key]; !ok && !freshKeys[key] {
			freshKeys[key] = true
			fresh = append(fresh, drafts[i])
			claimedAt = append(claimedAt, i)
		}
	}
	claimed := make([]editor.ClaimedCompetition, len(seasons))
	if len(fresh) > 0 {
		got, err := im.ed.ClaimCompetitions(ctx, fresh)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range claimedAt {
			claimed[i] = got[j]
		}
	}
	comps := make([]*model.Competition, len(seasons))
	existed := map[int]bool{}
	for i, pf := range seasons {
		c, found, err := im.competition(ctx, format, pf, drafts[i], claimed[i])
		if err != nil {
			return nil, nil, err
		}
		comps[i], existed[c.ID] = c, found
	}
	return comps, existed, nil
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

// fixtures loads the fixtures of the competitions that existed before the
// import with one scan: a scan per competition would be one consumer each,
// a thousand for a file of a thousand seasons.
func (im *Importer) fixtures(ctx context.Context, format string, existed map[int]bool) (known, error) {
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

// putFixtures queues a season's fixtures on batch: new ones under the ids
// their sources claimed (ids), imported ones again (which publishes
// nothing unless the file changed).
func (im *Importer) putFixtures(ctx context.Context, batch *editor.Batch, path string, pf *parsedFile, ms []parsedMatch,
	c *model.Competition, existing map[string]editor.Stored[model.Fixture], teamIDs, ids map[string]int, bar *bar) error {
	reject := func(pm *parsedMatch, err error) {
		im.Summary.Fixtures.Rejected++
		im.Summary.reject(Rejection{File: path, Line: pm.line, What: fmt.Sprintf("%s v %s (%s %d, %s)", pm.home, pm.away, c.League, c.Year, pm.round), Err: err})
		bar.step()
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
			Leg: pm.leg, Round: pm.round, Kickoff: pm.kickoff, HomeTeamID: teamIDs[pm.home], AwayTeamID: teamIDs[pm.away],
			Status: pm.status, Result: pm.result, Awarded: pm.awarded, Source: pm.source}
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
				// Odds are no part of the file, and derived matchdays
				// only counted from it: an overlapping file must not
				// number a match again.
				w.Odds = cur.Odds
				if pf.derivedMatchdays {
					w.Matchday = cur.Matchday
				}
			}
			return []model.Fixture{w}, nil
		}
		err := batch.Fixture(ctx, c, f.ID, from, want, func(ch editor.Change, err error) {
			if err != nil {
				reject(pm, err)
				return
			}
			im.Summary.Fixtures.add(ch.Action)
			bar.step()
		})
		if err != nil {
			return err
		}
	}
	return nil
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
