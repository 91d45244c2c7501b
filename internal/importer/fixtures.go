package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// known is what the stream holds of a file's competitions.
type known struct {
	// bySource holds the fixtures earlier imports made, by their Source.
	bySource map[string]editor.Stored[model.Fixture]
	// foreign counts, by competition, the regular fixtures of each
	// pairing that did not come from this format (another source, or an
	// editor's hand).
	foreign map[int]map[[2]int]int
	// others are those fixtures themselves, for a feed's import, which
	// writes the matches it finds among them (matchOthers).
	others map[int][]editor.Stored[model.Fixture]
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
	k := known{bySource: map[string]editor.Stored[model.Fixture]{}, foreign: map[int]map[[2]int]int{}, others: map[int][]editor.Stored[model.Fixture]{}}
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
				Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Source: ev.Source, Data: slices.Clone(ev.Data)}}
		case f.Stage == model.Regular:
			if k.foreign[f.CompetitionID] == nil {
				k.foreign[f.CompetitionID] = map[[2]int]int{}
			}
			k.foreign[f.CompetitionID][[2]int{f.HomeTeamID, f.AwayTeamID}]++
			if im.merge != nil {
				k.others[f.CompetitionID] = append(k.others[f.CompetitionID], editor.Stored[model.Fixture]{Value: f,
					Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Source: ev.Source, Data: slices.Clone(ev.Data)}})
			}
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
			switch foreign := k.foreign[id]; {
			case len(foreign) == 0:
			case im.merge != nil:
				fl.kept[i] = im.matchOthers(fl.kept[i], k.others[id], fl.teamIDs, k.bySource, fl.bar)
			default:
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
				st := editor.Stored[model.Fixture]{Value: f, Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Source: ev.Source, Data: slices.Clone(ev.Data)}}
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
		if pm.err != nil || pm.sameAs != "" {
			continue
		}
		c.Sources = append(c.Sources, pm.source)
		if pm.ownID > 0 {
			if c.Own == nil {
				c.Own = map[string]int{}
			}
			c.Own[pm.source] = pm.ownID
		}
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
	withGoals := matchesWithGoals(files)
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
	for i, a := range withGoals {
		if err := im.resolveGoals(a.pm, a.team); err != nil {
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
				g.ScorerID = im.persons.ID(a.team(*g), g.Scorer)
			}
		}
	}
	return nil
}

// matchWithGoals is a match of a file, kept, with goals to resolve.
type matchWithGoals struct {
	fl *file
	pm *parsedMatch
}

// team is the team a goal's scorer plays for: the side the goal counts
// for, or its opponent for an own goal.
func (a matchWithGoals) team(g model.Goal) int {
	if g.ScorerSide() == model.Home {
		return a.fl.teamIDs[a.pm.home]
	}
	return a.fl.teamIDs[a.pm.away]
}

// matchesWithGoals lists the files' kept matches that have goals, in
// file order.
func matchesWithGoals(files []*file) []matchWithGoals {
	var out []matchWithGoals
	for _, fl := range files {
		for _, ms := range fl.kept {
			for i := range ms {
				if ms[i].err == nil && len(ms[i].goals) > 0 {
					out = append(out, matchWithGoals{fl, &ms[i]})
				}
			}
		}
	}
	return out
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
		key, id := pm.source, ids[pm.source]
		if pm.sameAs != "" {
			key, id = pm.sameAs, existing[pm.sameAs].Value.ID
		}
		f := model.Fixture{ID: id, CompetitionID: c.ID, Matchday: pm.matchday, Group: pm.group, Stage: pm.stage,
			Leg: pm.leg, Round: pm.round, Kickoff: pm.kickoff, HomeTeamID: fl.teamIDs[pm.home], AwayTeamID: fl.teamIDs[pm.away],
			Status: pm.status, Result: pm.result, Awarded: pm.awarded, Odds: pm.odds, Referee: pm.referee, Source: key,
			Venue: pm.venue, Goals: pm.goals, Minute: pm.minute, InjuryTime: pm.injury}
		if f.HomeTeamID == 0 {
			f.HomePlaceholder = pm.home
		}
		if f.AwayTeamID == 0 {
			f.AwayPlaceholder = pm.away
		}
		from, said, err := im.storedFixture(ctx, existing, &f, pm)
		if err != nil {
			return err
		}
		want := func(cur *model.Fixture) ([]model.Fixture, error) {
			w := f
			switch {
			case cur != nil && pm.sameAs != "":
				w = othersFixture(f, cur)
			case cur != nil:
				keepStored(&w, cur, pf.derivedMatchdays)
			}
			if cur != nil {
				if im.merge != nil {
					w = im.merge.merge(w, cur, said, pm)
				}
			}
			return []model.Fixture{w}, nil
		}
		fl.queued++
		err = batch.Fixture(ctx, c, f.ID, from, want, func(ch editor.Change, err error) {
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

// storedFixture is the stored state of f that an earlier import wrote
// (nil when there is none) and, for a feed's import, what its source said
// last of each field (merger.said). A copy is made only when there is
// one: an allocation per fixture otherwise.
func (im *Importer) storedFixture(ctx context.Context, existing map[string]editor.Stored[model.Fixture], f *model.Fixture, pm *parsedMatch) (
	*editor.Stored[model.Fixture], map[string]string, error) {
	st, ok := existing[f.Source]
	if !ok || st.Value.ID != f.ID {
		return nil, nil, nil
	}
	from := new(editor.Stored[model.Fixture])
	*from = st
	if im.merge == nil {
		return from, nil, nil
	}
	said, err := im.merge.said(ctx, im.ed.Store, from, f, pm.sameAs != "")
	return from, said, err
}

// keepStored keeps in w, a source's state of a stored fixture cur, what
// the source does not give. Odds and the referee are kept when the file
// does not give them (most formats have neither). Goals an editor
// recorded stay while the file has none and the score they make is the
// file's. Derived matchdays are counted from the file's games, fewer in
// a file that begins after the season did (a feed's next matches): a
// match keeps the larger number, never one of a file that saw less of
// the season.
func keepStored(w, cur *model.Fixture, derivedMatchdays bool) {
	w.Odds = cmp.Or(w.Odds, cur.Odds)
	w.Referee = cmp.Or(w.Referee, cur.Referee)
	keepGoals(w, cur)
	w.Venue = cmp.Or(w.Venue, cur.Venue)
	if derivedMatchdays {
		w.Matchday = max(w.Matchday, cur.Matchday)
	}
}

// keepGoals keeps the goals of cur in w while w has none and the score
// they make is w's.
func keepGoals(w, cur *model.Fixture) {
	if w.Goals == nil && cur.Goals != nil && sameFinal(w.Result, cur.Result) {
		w.Goals = cur.Goals
	}
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
