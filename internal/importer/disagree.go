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
// disagreement records.

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
	mu     sync.Mutex
	// seen are the fixtures the import decided; found their
	// disagreements now.
	seen  map[int]bool
	found map[int][]Disagreement
}

func newMerger(feed string, prior []Disagreement) *merger {
	m := &merger{source: FeedSource(feed), prior: map[int][]Disagreement{}, seen: map[int]bool{}, found: map[int][]Disagreement{}}
	for _, d := range prior {
		m.prior[d.Fixture] = append(m.prior[d.Fixture], d)
	}
	return m
}

// said returns what the source said last of each field of a stored
// fixture, where that is known: from the fixture's disagreements, else
// from the feed's last revision of it. That revision is looked up in the
// fixture's history only when another writer wrote after the feed and the
// source now says something else than the stream holds; the feed never
// having written it, nothing is known and the source's values are
// written.
func (m *merger) said(ctx context.Context, store *events.Store, from *editor.Stored[model.Fixture], src *model.Fixture) (map[string]string, error) {
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
	// The stored state went through the write path, which gives a live
	// match its running 0-0 and drops a minute once it is over: the
	// source's is compared as it would be stored.
	src := w
	editor.LiveFields(&src)
	var ds []Disagreement
	for _, fd := range mergedFields {
		s, st := fd.text(&src), fd.text(cur)
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
	return w
}

// label names a match as the source does.
func (pm *parsedMatch) label() string {
	return fmt.Sprintf("%s v %s, %s", pm.home, pm.away, pm.kickoff.UTC().Format(time.DateOnly))
}

// result is the feed's disagreements after the import, by fixture: those
// it found, and the earlier ones of fixtures it did not decide (a live
// feed's poll reads one matchday).
func (m *merger) result() []Disagreement {
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
	return out
}
