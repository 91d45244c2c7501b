package importer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// A feed writes over fixtures that editors and other sources write too.
// One rule decides each of their fields (kick-off, status, score): the
// later change wins. A field the source says as it said it at its last
// write, while the stream holds another value, was changed since by
// someone else: that value holds, and the difference is a Disagreement.
// A field the source changed (or says for the first time) is written.
// What the source said last is the field as the feed's own last revision
// of the fixture holds it, or, for a field held, the source's value its
// disagreement records; of a fixture another source made (a match two
// sources carry, matchOthers), what the feed's status remembers
// (Options.Said).

// Disagreement is a field of a fixture whose stored value another writer
// (an editor, another source) set after the feed's source last changed
// it, and which the source still says otherwise: the stored value holds
// until the source changes that field.
type Disagreement struct {
	Fixture     int `json:"fixture"`
	Competition int `json:"competition"`
	// Match names it as the source does: "Sunderland AFC v Brighton &
	// Hove Albion FC, 2026-03-14".
	Match string `json:"match"`
	// Field is kickoff, status or score; Source and Stored are its
	// values as the source says it and as the stream holds it.
	Field  string `json:"field"`
	Source string `json:"source"`
	Stored string `json:"stored"`
}

// FeedSource is the source the changes of feed name are recorded with
// (events.Meta.Source): a revision of it is one the feed wrote.
func FeedSource(name string) string { return "feed " + name }

// mergedField is a field of a fixture decided by the rule: its value as
// text (how a disagreement shows it, and how values are compared) and how
// a held value is copied.
type mergedField struct {
	name string
	text func(f *model.Fixture) string
	keep func(dst, src *model.Fixture)
}

var mergedFields = []mergedField{
	{"kickoff", func(f *model.Fixture) string { return f.Kickoff.UTC().Format(time.RFC3339) },
		func(dst, src *model.Fixture) { dst.Kickoff = src.Kickoff }},
	{"status", func(f *model.Fixture) string { return string(f.Status) },
		func(dst, src *model.Fixture) {
			dst.Status, dst.Minute, dst.InjuryTime = src.Status, src.Minute, src.InjuryTime
		}},
	// Goals and an award go with the score they make.
	{"score", scoreText, func(dst, src *model.Fixture) { dst.Result, dst.Awarded, dst.Goals = src.Result, src.Awarded, src.Goals }},
}

// scoreText is a fixture's score as a disagreement shows it: "2-1 (ht
// 1-0)", "none" before there is one.
func scoreText(f *model.Fixture) string {
	r := f.Result
	if r.FullTime == nil {
		return "none"
	}
	s := fmt.Sprintf("%d-%d", r.FullTime.Home, r.FullTime.Away)
	for _, p := range []struct {
		label string
		sc    *model.Score
	}{{"ht", r.HalfTime}, {"aet", r.ExtraTime}, {"pens", r.Penalties}} {
		if p.sc != nil {
			s += fmt.Sprintf(" (%s %d-%d)", p.label, p.sc.Home, p.sc.Away)
		}
	}
	if f.Awarded != "" {
		s += " awarded " + string(f.Awarded)
	}
	return s
}

// merger applies the rule for one feed's import.
type merger struct {
	source string // FeedSource of the feed
	prior  map[int][]Disagreement
	// priorSaid is what the source said of the fixtures other sources
	// made (Options.Said).
	priorSaid map[int]map[string]string
	mu        sync.Mutex
	// seen are the fixtures the import decided; found their
	// disagreements now, foundSaid what the source says now of those
	// other sources made.
	seen      map[int]bool
	found     map[int][]Disagreement
	foundSaid map[int]map[string]string
}

func newMerger(feed string, prior []Disagreement, said map[int]map[string]string) *merger {
	m := &merger{source: FeedSource(feed), prior: map[int][]Disagreement{}, priorSaid: said,
		seen: map[int]bool{}, found: map[int][]Disagreement{}, foundSaid: map[int]map[string]string{}}
	for _, d := range prior {
		m.prior[d.Fixture] = append(m.prior[d.Fixture], d)
	}
	return m
}

// said returns what the source said last of each field of a stored
// fixture, where that is known. Of a fixture another source made (other:
// a match of two sources, matchOthers), it is what the feed's status
// remembers (nothing the first time: the source's word is then the later
// change). Of its own, it is the source's value a disagreement records,
// else the field as the feed's last revision of the fixture holds it.
// That revision is looked up in the fixture's history only when another
// writer wrote after the feed and the source now says something else
// than the stream holds; none kept, nothing is known and the source's
// values are written.
func (m *merger) said(ctx context.Context, store *events.Store, from *editor.Stored[model.Fixture], src *model.Fixture, other bool) (map[string]string, error) {
	if other {
		return m.priorSaid[from.Value.ID], nil
	}
	out := map[string]string{}
	held := map[string]string{}
	for _, d := range m.prior[from.Value.ID] {
		held[d.Field] = d.Source
	}
	var mine *model.Fixture
	if from.Rev.Source == m.source {
		mine = &from.Value
	}
	looked := false
	for _, fd := range mergedFields {
		if s, ok := held[fd.name]; ok {
			out[fd.name] = s
			continue
		}
		if mine == nil && !looked && fd.text(src) != fd.text(&from.Value) {
			looked = true
			var err error
			if mine, err = m.lastOwn(ctx, store, from.Rev.Subject); err != nil {
				return nil, err
			}
		}
		if mine != nil {
			out[fd.name] = fd.text(mine)
		}
	}
	return out, nil
}

// stored is f as the write path stores it, which gives a live match its
// running 0-0 and drops a minute once it is over: a source's state is
// compared with the stream's as it would be stored.
func stored(f model.Fixture) *model.Fixture {
	editor.LiveFields(&f)
	return &f
}

// lastOwn is the feed's last revision of a fixture (nil: none kept).
func (m *merger) lastOwn(ctx context.Context, store *events.Store, subject string) (*model.Fixture, error) {
	revs, err := store.History(ctx, subject)
	if err != nil {
		return nil, fmt.Errorf("what feed %s wrote last: %w", m.source, err)
	}
	for i := len(revs) - 1; i >= 0; i-- {
		if revs[i].Source == m.source {
			f, err := events.Decode[model.Fixture](revs[i].Data)
			if err != nil {
				return nil, fmt.Errorf("what feed %s wrote last: %w", m.source, err)
			}
			return &f, nil
		}
	}
	return nil, nil
}

// merge returns w, what the source says of the stored fixture cur (its
// match pm), with its fields decided by the rule: a field the source says
// as it did (said) while cur holds another value keeps cur's, and is a
// disagreement. w is passed by value: its address would move every
// import's fixture to the heap.
func (m *merger) merge(w model.Fixture, cur *model.Fixture, said map[string]string, pm *parsedMatch) model.Fixture {
	// A source that gives the day alone says nothing of the hour.
	if !pm.timed && sameDay(w.Kickoff, cur.Kickoff) {
		w.Kickoff = cur.Kickoff
	}
	src := stored(w)
	var ds []Disagreement
	var now map[string]string
	if pm.sameAs != "" {
		now = map[string]string{}
	}
	for _, fd := range mergedFields {
		s, st := fd.text(src), fd.text(cur)
		if now != nil {
			now[fd.name] = s
		}
		if s == st {
			continue
		}
		if last, ok := said[fd.name]; ok && last == s {
			fd.keep(&w, cur)
			ds = append(ds, Disagreement{Fixture: cur.ID, Competition: cur.CompetitionID, Match: pm.label(), Field: fd.name, Source: s, Stored: st})
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen[cur.ID] = true
	m.found[cur.ID] = ds
	if now != nil {
		m.foundSaid[cur.ID] = now
	}
	return w
}

// label names a match as the source does.
func (pm *parsedMatch) label() string {
	return fmt.Sprintf("%s v %s, %s", pm.home, pm.away, pm.kickoff.UTC().Format(time.DateOnly))
}

// result is the feed's disagreements after the import, by fixture, and
// what its source said of the fixtures other sources made: what it found,
// and the earlier ones of fixtures it did not decide (a live feed's poll
// reads one matchday).
func (m *merger) result() ([]Disagreement, map[int]map[string]string) {
	all := maps.Clone(m.found)
	for id, ds := range m.prior {
		if !m.seen[id] {
			all[id] = ds
		}
	}
	var out []Disagreement
	for _, id := range slices.Sorted(maps.Keys(all)) {
		out = append(out, all[id]...)
	}
	said := maps.Clone(m.foundSaid)
	for id, s := range m.priorSaid {
		if !m.seen[id] {
			said[id] = s
		}
	}
	if len(said) == 0 {
		said = nil
	}
	return out, said
}

// matchOthers finds, for a feed's import, the matches of ms that another
// source already put into the competition (others, its regular fixtures):
// the same teams and kick-off day, or the same teams when the pairing has
// one such fixture left. A match found writes that fixture (sameAs, its
// stored state added to bySource) by the rule, instead of a second one;
// a pairing with fixtures of others none of which is found is left to
// them, as an editor's import leaves it (skipForeign), and so is a
// fixture without a source.
func (im *Importer) matchOthers(ms []parsedMatch, others []editor.Stored[model.Fixture], teamIDs map[string]int,
	bySource map[string]editor.Stored[model.Fixture], bar *bar) []parsedMatch {
	byPair := map[[2]int][]int{}
	for i, o := range others {
		pair := [2]int{o.Value.HomeTeamID, o.Value.AwayTeamID}
		byPair[pair] = append(byPair[pair], i)
	}
	kept := make([]parsedMatch, 0, len(ms))
	for _, pm := range ms {
		pair := [2]int{teamIDs[pm.home], teamIDs[pm.away]}
		cands := byPair[pair]
		if pm.stage != model.Regular || len(cands) == 0 {
			kept = append(kept, pm)
			continue
		}
		at := slices.IndexFunc(cands, func(i int) bool { return sameDay(others[i].Value.Kickoff, pm.kickoff) })
		if at < 0 && len(cands) == 1 {
			at = 0
		}
		var o editor.Stored[model.Fixture]
		if at >= 0 {
			o = others[cands[at]]
			byPair[pair] = slices.Delete(cands, at, at+1)
		}
		// A fixture an editor made by hand has no source to find it by:
		// it is left to the editor.
		if o.Value.Source == "" {
			im.Summary.Fixtures.Unchanged++
			bar.step()
			continue
		}
		pm.sameAs = o.Value.Source
		bySource[o.Value.Source] = o
		kept = append(kept, pm)
	}
	return kept
}

// othersFixture is what a feed writes over cur, a fixture another source
// made that its match f was found to be: the fields of the rule, the
// rest as cur has them (its round, matchday, details), so that two
// sources that label a match differently do not take turns rewriting it.
func othersFixture(f model.Fixture, cur *model.Fixture) model.Fixture {
	w := *cur
	for _, fd := range mergedFields {
		fd.keep(&w, &f)
	}
	keepGoals(&w, cur)
	return w
}

// sameDay reports whether two kick-offs are on the same day (UTC).
func sameDay(a, b time.Time) bool {
	return a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly)
}
