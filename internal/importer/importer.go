// Package importer brings fixtures and results from public data files into
// the stream through the editor, so imported data obeys the same rules as
// hand edits. Teams are matched by name through the name mapping kept in the
// stream, and every fixture remembers where it came from, so importing the
// same file again publishes nothing.
package importer

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Counts tallies what happened to one kind of entity.
type Counts struct {
	Created, Updated, Unchanged, Rejected int
}

func (c *Counts) add(a editor.Action) {
	switch a {
	case editor.Created:
		c.Created++
	case editor.Updated:
		c.Updated++
	default:
		c.Unchanged++
	}
}

// Rejection is one entry the importer refused, with the reason.
type Rejection struct {
	File   string
	Match  int // 1-based position in the file's match list; 0 for the file
	Reason string
}

// Summary is what an import did.
type Summary struct {
	Files                                              int
	Leagues, Competitions, Teams, Fixture, Adjustments Counts
	Rejected                                           []Rejection
}

// Print writes the summary for an editor.
func (s *Summary) Print(w io.Writer, dryRun bool) {
	head := "imported"
	if dryRun {
		head = "dry run, nothing published; would have imported"
	}
	fmt.Fprintf(w, "%s %d file(s)\n", head, s.Files)
	fmt.Fprintf(w, "  %-13s %8s %8s %10s %9s\n", "", "created", "updated", "unchanged", "rejected")
	for _, r := range []struct {
		name string
		c    Counts
	}{{"leagues", s.Leagues}, {"competitions", s.Competitions}, {"teams", s.Teams}, {"fixtures", s.Fixture}, {"adjustments", s.Adjustments}} {
		fmt.Fprintf(w, "  %-13s %8d %8d %10d %9d\n", r.name, r.c.Created, r.c.Updated, r.c.Unchanged, r.c.Rejected)
	}
	for _, r := range s.Rejected {
		if r.Match > 0 {
			fmt.Fprintf(w, "rejected %s match %d: %s\n", r.File, r.Match, r.Reason)
		} else {
			fmt.Fprintf(w, "rejected %s: %s\n", r.File, r.Reason)
		}
	}
}

// Importer imports files one after another, sharing what it learnt of the
// stream (team names, competitions) between them.
type Importer struct {
	ed       *editor.Editor
	progress io.Writer
	names    map[string]int // normalised team name → team id
	comps    map[string]int // "PL/2015" → competition id
	Summary  Summary
}

// New returns an importer writing through ed. progress, if not nil,
// receives a progress bar (pass the terminal, or nil when not on one).
func New(ed *editor.Editor, progress io.Writer) *Importer {
	return &Importer{ed: ed, progress: progress}
}

func (im *Importer) load(ctx context.Context) error {
	if im.names != nil {
		return nil
	}
	im.names, im.comps = map[string]int{}, map[string]int{}
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
		im.comps[compKey(c.League, c.Year)] = c.ID
		return err
	})
	if err != nil {
		return fmt.Errorf("load competitions: %w", err)
	}
	return nil
}

func compKey(code model.LeagueCode, year int) string { return fmt.Sprintf("%s/%d", code, year) }

// placeholderRE matches knock-out placeholders such as "W49", "1A", "2B/3C"
// and "N.N." (not yet known).
var placeholderRE = regexp.MustCompile(`^(?:[WL]\d+|[123][A-L](?:/[A-L0-9]+)*|Winner .*|Loser .*|TBD|N\.N\.)$`)

// OpenFootball imports one openfootball JSON file. A file that cannot be
// imported at all is counted as rejected and its reason returned.
func (im *Importer) OpenFootball(ctx context.Context, path string, opts Options) error {
	return im.file(path, im.openFootball(ctx, path, opts))
}

// file counts an imported file, and lists it as rejected when its import
// failed as invalid (rather than for want of a stream).
func (im *Importer) file(path string, err error) error {
	im.Summary.Files++
	if err != nil && model.ErrorCode(err) == model.Invalid {
		im.Summary.Rejected = append(im.Summary.Rejected, Rejection{File: path, Reason: err.Error()})
	}
	return err
}

func (im *Importer) openFootball(ctx context.Context, path string, opts Options) error {
	_, league, year, err := locate(path, opts)
	if err != nil {
		return err
	}
	if league, err = im.ensureLeague(ctx, league); err != nil {
		return err
	}
	zone, err := time.LoadLocation(league.Zone)
	if err != nil {
		return fmt.Errorf("league %s: time zone %q: %w", league.Code, league.Zone, err)
	}
	pf, err := parseFile(path, league, year, zone)
	if err != nil {
		return err
	}
	if err := im.load(ctx); err != nil {
		return err
	}
	teamIDs, err := im.resolveTeams(ctx, pf)
	if err != nil {
		return err
	}
	comp, existed, err := im.putCompetition(ctx, pf, teamIDs)
	if err != nil {
		return err
	}
	return im.putFixtures(ctx, pf, comp, existed, teamIDs)
}

func (im *Importer) ensureLeague(ctx context.Context, l model.League) (model.League, error) {
	known, err := im.ed.League(ctx, l.Code)
	if err == nil {
		return known, nil
	}
	if model.ErrorCode(err) != model.Invalid || l.Name == "" {
		return l, err
	}
	ch, err := im.ed.PutLeague(ctx, l)
	if err != nil {
		return l, err
	}
	im.Summary.Leagues.add(ch.Action)
	return l, nil
}

func (im *Importer) resolveTeams(ctx context.Context, pf *parsedFile) (map[string]int, error) {
	ids := map[string]int{}
	var fresh []string
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
	if len(fresh) == 0 {
		return ids, nil
	}
	next, err := im.ed.NextIDs(ctx, events.KindTeam, len(fresh))
	if err != nil {
		return nil, err
	}
	for i, name := range fresh {
		id, created, err := im.ed.TeamByName(ctx, name, next+i)
		if err != nil {
			return nil, fmt.Errorf("team %q: %w", name, err)
		}
		ids[name], im.names[model.NormalizeTeamName(name)] = id, id
		if created {
			im.Summary.Teams.Created++
		} else {
			im.Summary.Teams.Unchanged++
		}
	}
	return ids, nil
}

// putCompetition creates or updates the file's competition; existed tells
// whether it was in the stream before.
func (im *Importer) putCompetition(ctx context.Context, pf *parsedFile, teamIDs map[string]int) (c model.Competition, existed bool, err error) {
	c = model.Competition{Caption: pf.caption, League: pf.league.Code, Year: pf.year, Type: pf.kind,
		NumberOfMatchdays: pf.matchdays, Tier: model.TierAnonymous, Rules: model.DefaultRules(pf.league.Code, pf.year)}
	var prev *events.Revision
	if id, ok := im.comps[compKey(c.League, c.Year)]; ok {
		old, rev, err := im.ed.Competition(ctx, id)
		if err != nil {
			return c, false, err
		}
		// Access tier and table rules are the editors' decisions: an
		// import never changes them.
		c.ID, c.Tier, c.Rules, prev = id, old.Tier, old.Rules, rev
	}
	seen := map[int]bool{}
	for _, pm := range pf.matches {
		if pm.stage != model.Regular && pf.kind != model.TypeCup {
			continue
		}
		for _, name := range []string{pm.home, pm.away} {
			if id := teamIDs[name]; id != 0 && !seen[id] {
				seen[id] = true
				c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: id, Group: pf.groups[name]})
			}
		}
	}
	sort.Slice(c.Teams, func(i, j int) bool { return c.Teams[i].TeamID < c.Teams[j].TeamID })
	ch, err := im.ed.PutCompetition(ctx, &c, prev)
	if err != nil {
		return c, false, fmt.Errorf("competition %s %d: %w", c.League, c.Year, err)
	}
	im.Summary.Competitions.add(ch.Action)
	im.comps[compKey(c.League, c.Year)] = c.ID
	return c, prev != nil, nil
}

type stored struct {
	f   model.Fixture
	rev events.Revision
}

func (im *Importer) putFixtures(ctx context.Context, pf *parsedFile, c model.Competition, existed bool, teamIDs map[string]int) error {
	existing := map[string]stored{}
	// A competition created by this import has no fixtures to find yet.
	if existed {
		err := im.ed.Store.Scan(ctx, events.Subject(events.KindFixture, strconv.Itoa(c.ID), "*"), func(ev events.Event) error {
			f, err := events.Decode[model.Fixture](ev.Data)
			if err == nil && f.Source != "" {
				existing[f.Source] = stored{f, events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: append([]byte(nil), ev.Data...)}}
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("load fixtures of competition %d: %w", c.ID, err)
		}
	}
	fresh := 0
	for _, pm := range pf.matches {
		if _, ok := existing[pm.source]; !ok {
			fresh++
		}
	}
	nextID, err := im.ed.NextIDs(ctx, events.KindFixture, fresh)
	if err != nil {
		return err
	}
	bar := newBar(im.progress, pf.path, len(pf.matches))
	defer bar.finish()
	bulk := im.ed.Store.Bulk()
	reject := func(pm parsedMatch, err error) {
		im.Summary.Fixture.Rejected++
		im.Summary.Rejected = append(im.Summary.Rejected, Rejection{File: pf.path, Match: pm.line,
			Reason: fmt.Sprintf("%s v %s (%s): %v", pm.home, pm.away, pm.round, err)})
		bar.step()
	}
	for _, pm := range pf.matches {
		f := model.Fixture{CompetitionID: c.ID, Matchday: pm.matchday, Group: pm.group, Stage: pm.stage,
			Round: pm.round, Kickoff: pm.kickoff, HomeTeamID: teamIDs[pm.home], AwayTeamID: teamIDs[pm.away],
			Status: pm.status, Result: pm.result, Awarded: pm.awarded, Source: pm.source}
		if f.HomeTeamID == 0 {
			f.HomePlaceholder = pm.home
		}
		if f.AwayTeamID == 0 {
			f.AwayPlaceholder = pm.away
		}
		st, ok := existing[pm.source]
		if ok {
			f.ID, f.Odds = st.f.ID, st.f.Odds
		} else {
			f.ID = nextID
			nextID++
		}
		if pm.err != nil {
			reject(pm, pm.err)
			continue
		}
		var from *stored
		if ok {
			from = &st
		}
		if err := im.putFixture(ctx, bulk, &c, f, from, func(err error) { reject(pm, err) }, bar); err != nil {
			return err
		}
	}
	return bulk.Flush(ctx)
}

// putFixture checks f against its competition and its stored state (nil
// for a new fixture) and queues it on bulk, counting what happened. A
// refused fixture goes to reject; only a stream failure is returned.
func (im *Importer) putFixture(ctx context.Context, bulk *events.Bulk, c *model.Competition, f model.Fixture, from *stored, reject func(error), bar *bar) error {
	var prev *events.Revision
	var old *model.Fixture
	action := editor.Created
	if from != nil {
		prev, old, action = &from.rev, &from.f, editor.Updated
	}
	if err := editor.CheckFixture(c, &f, old); err != nil {
		reject(err)
		return nil
	}
	if old != nil && old.Status != f.Status {
		// A result of a match that was still TIMED (or postponed) in the
		// stored state passes through the allowed moves, as a live edit
		// would.
		var err error
		if prev, err = im.ed.StepTo(ctx, f, *old, prev); err != nil {
			reject(err)
			return nil
		}
	}
	if im.ed.DryRun {
		body, err := events.Encode(&f)
		if err != nil {
			return err
		}
		if prev != nil && string(prev.Data) == string(body) {
			action = editor.Unchanged
		}
		im.Summary.Fixture.add(action)
		bar.step()
		return nil
	}
	return bulk.Put(ctx, events.Write{Value: &f, Prev: prev, Meta: im.ed.Meta}, func(r events.Result, err error) {
		switch {
		case err != nil:
			reject(err)
			return
		case !r.Changed:
			im.Summary.Fixture.add(editor.Unchanged)
		default:
			im.Summary.Fixture.add(action)
		}
		bar.step()
	})
}

// bar draws a progress bar on a terminal; it is silent without one.
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
}

func (b *bar) finish() {
	if b.w != nil {
		fmt.Fprintln(b.w)
	}
}
