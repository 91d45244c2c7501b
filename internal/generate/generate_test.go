package generate_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustRun(t testing.TB, s *events.Store, cfg generate.Config) generate.Summary {
	t.Helper()
	sum, err := generate.Run(ctxT(t), s, cfg, nil)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return sum
}

// bodies reads the current message body of every subject of the stream.
func bodies(t testing.TB, s *events.Store) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := s.Scan(ctxT(t), "", func(ev events.Event) error {
		out[ev.Subject] = append([]byte(nil), ev.Data...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// world is the current state of a generated stream, decoded.
type world struct {
	comps    map[int]model.Competition
	fixtures map[int]model.Fixture
	teams    map[int]model.Team
	squads   map[int]model.Squad
	adjust   []model.Adjustment
	names    map[string]int
}

func decodeWorld(t testing.TB, b map[string][]byte) world {
	t.Helper()
	w := world{comps: map[int]model.Competition{}, fixtures: map[int]model.Fixture{}, teams: map[int]model.Team{},
		squads: map[int]model.Squad{}, names: map[string]int{}}
	for subject, body := range b {
		kind, _, _ := events.KeyOf(subject)
		var err error
		switch kind {
		case events.KindCompetition:
			var c model.Competition
			c, err = events.Decode[model.Competition](body)
			w.comps[c.ID] = c
		case events.KindFixture:
			var f model.Fixture
			f, err = events.Decode[model.Fixture](body)
			w.fixtures[f.ID] = f
		case events.KindTeam:
			var tm model.Team
			tm, err = events.Decode[model.Team](body)
			w.teams[tm.ID] = tm
		case events.KindSquad:
			var sq model.Squad
			sq, err = events.Decode[model.Squad](body)
			w.squads[sq.TeamID] = sq
		case events.KindAdjustment:
			var a model.Adjustment
			a, err = events.Decode[model.Adjustment](body)
			w.adjust = append(w.adjust, a)
		case events.KindTeamName:
			var tn model.TeamName
			tn, err = events.Decode[model.TeamName](body)
			w.names[tn.Name] = tn.TeamID
		}
		if err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
	}
	return w
}

func (w world) byComp() map[int][]model.Fixture {
	out := map[int][]model.Fixture{}
	for _, f := range w.fixtures {
		out[f.CompetitionID] = append(out[f.CompetitionID], f)
	}
	return out
}

// TestWorld generates three leagues over two seasons with a tournament and
// checks the world against the configuration and football's rules.
func TestWorld(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	sum := mustRun(t, s, generate.Config{Seed: 42, Leagues: 3, Seasons: 2})
	w := decodeWorld(t, bodies(t, s))

	// Counts match the summary, and the summary the configuration.
	if sum.Seasons != 2 || sum.Competitions != 3*2+1 || len(w.comps) != sum.Competitions {
		t.Errorf("competitions: summary %+v, stream %d", sum, len(w.comps))
	}
	if len(w.fixtures) != sum.Fixtures || len(w.teams) != sum.Teams || len(w.squads) != sum.Teams ||
		len(w.names) != sum.Teams || len(w.adjust) != sum.Adjustments {
		t.Errorf("stream holds %d fixtures, %d teams, %d squads, %d names, %d adjustments; summary %+v",
			len(w.fixtures), len(w.teams), len(w.squads), len(w.names), len(w.adjust), sum)
	}
	wantFixtures := 0
	for _, c := range w.comps {
		if c.Type == model.TypeLeague {
			wantFixtures += len(c.Teams) * (len(c.Teams) - 1)
		}
	}
	if wantFixtures+64 != sum.Fixtures {
		t.Errorf("%d fixtures, want %d league fixtures and 64 of the tournament", sum.Fixtures, wantFixtures)
	}

	// Every fixture is valid in its competition.
	var goals, games, homeWins, awayWins, postponed, awarded int
	for _, f := range w.fixtures {
		c, ok := w.comps[f.CompetitionID]
		if !ok {
			t.Fatalf("fixture %d of unknown competition %d", f.ID, f.CompetitionID)
		}
		if err := model.CheckFixture(&c, &f, nil); err != nil {
			t.Errorf("fixture %d: %v", f.ID, err)
		}
		switch {
		case f.Status == model.Postponed:
			postponed++
		case f.Awarded != "":
			awarded++
		case f.Status == model.Finished && c.Type == model.TypeLeague:
			games++
			goals += f.Result.FullTime.Home + f.Result.FullTime.Away
			if ht := f.Result.HalfTime; ht == nil || ht.Home > f.Result.FullTime.Home || ht.Away > f.Result.FullTime.Away {
				t.Errorf("fixture %d: half time %v, full time %v", f.ID, ht, f.Result.FullTime)
			}
			switch f.Result.FullTime.Winner() {
			case model.Home:
				homeWins++
			case model.Away:
				awayWins++
			}
		case f.Status != model.Finished:
			t.Errorf("fixture %d is %s", f.ID, f.Status)
		}
	}
	if avg := float64(goals) / float64(games); avg < 2 || avg > 3.5 || homeWins <= awayWins {
		t.Errorf("%.2f goals a game, %d home wins, %d away wins", avg, homeWins, awayWins)
	}
	if postponed == 0 || postponed > sum.Fixtures/30 || awarded > 10 {
		t.Errorf("%d postponed and %d awarded of %d", postponed, awarded, sum.Fixtures)
	}

	// Leagues: a double round robin, one matchday a weekend.
	seasonTeams := map[string][]int{} // "PL/2000" → team ids
	pairs := map[[2]int]int{}
	for id, fixtures := range w.byComp() {
		c := w.comps[id]
		if c.Type != model.TypeLeague {
			continue
		}
		n := len(c.Teams)
		if n < 18 || n > 24 || n%2 == 1 || c.NumberOfMatchdays != 2*(n-1) {
			t.Errorf("%s %d: %d teams, %d matchdays", c.League, c.Year, n, c.NumberOfMatchdays)
		}
		home, away := map[int]int{}, map[int]int{}
		met := map[[2]int]bool{}
		saturday := map[int]time.Time{}
		for _, f := range fixtures {
			home[f.HomeTeamID]++
			away[f.AwayTeamID]++
			pair := [2]int{f.HomeTeamID, f.AwayTeamID}
			if met[pair] {
				t.Errorf("%s %d: %v meet twice at the same ground", c.League, c.Year, pair)
			}
			met[pair] = true
			pairs[pair]++
			day := f.Kickoff.Truncate(24 * time.Hour)
			if f.Kickoff.Weekday() == time.Sunday {
				day = day.AddDate(0, 0, -1)
			}
			if day.Weekday() != time.Saturday {
				t.Errorf("fixture %d kicks off on a %s", f.ID, f.Kickoff.Weekday())
			}
			if s, ok := saturday[f.Matchday]; ok && !s.Equal(day) {
				t.Errorf("%s %d matchday %d is played on two weekends", c.League, c.Year, f.Matchday)
			}
			saturday[f.Matchday] = day
		}
		for md := 2; md <= c.NumberOfMatchdays; md++ {
			if gap := saturday[md].Sub(saturday[md-1]); gap != 7*24*time.Hour {
				t.Errorf("%s %d: matchdays %d and %d are %s apart", c.League, c.Year, md-1, md, gap)
			}
		}
		for _, ct := range c.Teams {
			if home[ct.TeamID] != n-1 || away[ct.TeamID] != n-1 {
				t.Errorf("%s %d: team %d plays %d home and %d away games, want %d each", c.League, c.Year, ct.TeamID, home[ct.TeamID], away[ct.TeamID], n-1)
			}
			seasonTeams[fmt.Sprintf("%s/%d", c.League, c.Year)] = append(seasonTeams[fmt.Sprintf("%s/%d", c.League, c.Year)], ct.TeamID)
		}
	}
	// Teams persist: most stay in their league, a few move up or down.
	moved := 0
	for _, code := range []string{"PL", "ELC", "EL1"} {
		before, after := seasonTeams[code+"/2000"], seasonTeams[code+"/2001"]
		stayed := 0
		for _, id := range after {
			if slices.Contains(before, id) {
				stayed++
			}
		}
		if len(after) != len(before) || stayed < len(after)-6 || stayed == len(after) {
			t.Errorf("%s: %d of %d teams stayed", code, stayed, len(after))
		}
		moved += len(after) - stayed
	}
	if moved != 3+6+6 {
		t.Errorf("%d teams changed league, want 3 in the top league and 6 in each other", moved)
	}
	again := 0
	for _, n := range pairs {
		if n == 2 {
			again++
		}
	}
	if again < 100 {
		t.Errorf("only %d pairings repeat across seasons", again)
	}

	// The tournament: eight groups of four, knock-outs resolved to a final.
	var wc model.Competition
	for _, c := range w.comps {
		if c.Type == model.TypeTournament {
			wc = c
		}
	}
	groups := map[string]int{}
	for _, ct := range wc.Teams {
		groups[ct.Group]++
	}
	if wc.League != "WC" || wc.Year != 2000 || len(wc.Teams) != 32 || len(groups) != 8 || wc.NumberOfMatchdays != 3 {
		t.Errorf("tournament %s %d: %d teams in %d groups, %d matchdays", wc.League, wc.Year, len(wc.Teams), len(groups), wc.NumberOfMatchdays)
	}
	regular, rounds := 0, map[int]int{}
	var final model.Fixture
	for _, f := range w.byComp()[wc.ID] {
		if f.Stage == model.Regular {
			regular++
			continue
		}
		rounds[f.Matchday]++
		if f.HomeTeamID == 0 || f.AwayTeamID == 0 || f.HomePlaceholder != "" || f.Status != model.Finished {
			t.Errorf("knock-out fixture %d not resolved: %+v", f.ID, f)
		}
		if f.Matchday == 8 {
			final = f
		}
	}
	if regular != 48 || !maps2Equal(rounds, map[int]int{4: 8, 5: 4, 6: 2, 7: 1, 8: 1}) || final.Round != "Final" {
		t.Errorf("tournament: %d group fixtures, knock-out rounds %v, final %+v", regular, rounds, final)
	}

	// Squads, teams and names.
	for id, sq := range w.squads {
		if err := sq.Validate(); err != nil || len(sq.Players) != 25 {
			t.Errorf("squad of %d: %d players, %v", id, len(sq.Players), err)
		}
		keepers := 0
		for _, p := range sq.Players {
			if p.DateOfBirth == nil || p.JerseyNumber == nil || p.Nationality == "" {
				t.Errorf("player %+v lacks details", p)
			}
			if p.Position == "Keeper" {
				keepers++
			}
		}
		if keepers != 3 {
			t.Errorf("squad of %d has %d keepers", id, keepers)
		}
	}
	normalised := map[string]bool{}
	for _, tm := range w.teams {
		key := model.NormalizeTeamName(tm.Name)
		if normalised[key] || w.names[tm.Name] != tm.ID {
			t.Errorf("team %d %q: name not unique or not mapped", tm.ID, tm.Name)
		}
		normalised[key] = true
	}
	for _, a := range w.adjust {
		if c := w.comps[a.CompetitionID]; !c.HasTeam(a.TeamID) || a.Points >= 0 {
			t.Errorf("adjustment %+v", a)
		}
	}
}

func maps2Equal(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSameSeedSameWorld generates twice into fresh servers: every subject
// holds the same body. Another seed makes another world.
func TestSameSeedSameWorld(t *testing.T) {
	cfg := generate.Config{Seed: 7, Leagues: 2, Seasons: 2, MinTeams: 18, MaxTeams: 20, LiveMatches: 2, TournamentEvery: 2}
	var worlds []map[string][]byte
	for _, seed := range []uint64{7, 7, 8} {
		s := natstest.MustOpen(t, natstest.MustStart(t))
		c := cfg
		c.Seed = seed
		mustRun(t, s, c)
		worlds = append(worlds, bodies(t, s))
	}
	if diff := compare(worlds[0], worlds[1]); diff != "" {
		t.Errorf("same seed, different worlds: %s", diff)
	}
	if diff := compare(worlds[0], worlds[2]); diff == "" {
		t.Error("seeds 7 and 8 made the same world")
	}
}

// compare describes the first difference between two streams' states.
func compare(a, b map[string][]byte) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d subjects and %d", len(a), len(b))
	}
	subjects := make([]string, 0, len(a))
	for s := range a {
		subjects = append(subjects, s)
	}
	slices.Sort(subjects)
	for _, s := range subjects {
		if !bytes.Equal(a[s], b[s]) {
			return fmt.Sprintf("%s: %s and %s", s, a[s], b[s])
		}
	}
	return ""
}

func history(t testing.TB, s *events.Store, f model.Fixture) []model.Fixture {
	t.Helper()
	revs, err := s.History(ctxT(t), events.Subject(events.KindFixture, strconv.Itoa(f.CompetitionID), strconv.Itoa(f.ID)))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]model.Fixture, len(revs))
	for i, r := range revs {
		if out[i], err = events.Decode[model.Fixture](r.Data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func statuses(h []model.Fixture) string {
	var b strings.Builder
	for i, f := range h {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(f.Status))
	}
	return b.String()
}

// TestLiveStreamsAndExtraEdits checks the revisions of live matches and
// knock-out fixtures, and that extra edits end in the same world.
func TestLiveStreamsAndExtraEdits(t *testing.T) {
	cfg := generate.Config{Seed: 3, Leagues: 1, Seasons: 2, MinTeams: 18, MaxTeams: 18, LiveMatches: 3}
	plainStore := natstest.MustOpen(t, natstest.MustStart(t))
	sum := mustRun(t, plainStore, cfg)
	edited := cfg
	edited.ExtraEdits = 3
	editStore := natstest.MustOpen(t, natstest.MustStart(t))
	editSum := mustRun(t, editStore, edited)

	before, after := bodies(t, plainStore), bodies(t, editStore)
	if diff := compare(before, after); diff != "" {
		t.Fatalf("extra edits changed the final world: %s", diff)
	}
	w := decodeWorld(t, before)
	if len(sum.LiveFixtures) != 3 || !slices.Equal(sum.LiveFixtures, editSum.LiveFixtures) {
		t.Fatalf("live fixtures %v and %v", sum.LiveFixtures, editSum.LiveFixtures)
	}
	// Every revision is a change; the extra ones are the story's first
	// state with other odds.
	wantMessages := sum.Messages + 3*sum.Fixtures
	if editSum.Messages != wantMessages {
		t.Errorf("%d messages with 3 extra edits, want %d", editSum.Messages, wantMessages)
	}
	inPlay := strings.TrimSpace(strings.Repeat("IN_PLAY ", 13))
	for _, id := range sum.LiveFixtures {
		f := w.fixtures[id]
		h := history(t, plainStore, f)
		if got, want := statuses(h), "TIMED "+inPlay+" FINISHED"; got != want {
			t.Fatalf("live fixture %d: %s, want %s", id, got, want)
		}
		for i := 2; i < len(h)-1; i++ {
			prev, cur := h[i-1].Result.FullTime, h[i].Result.FullTime
			if cur.Home < prev.Home || cur.Away < prev.Away || cur.Home > f.Result.FullTime.Home || cur.Away > f.Result.FullTime.Away {
				t.Errorf("live fixture %d: running score %v after %v, final %v", id, *cur, *prev, *f.Result.FullTime)
			}
		}
		if ht := h[len(h)-2].Result.HalfTime; ht == nil || *ht != *f.Result.HalfTime {
			t.Errorf("live fixture %d: half time %v in play, %v at the end", id, ht, f.Result.HalfTime)
		}
		if got, want := statuses(history(t, editStore, f)), "TIMED TIMED TIMED TIMED "+inPlay+" FINISHED"; got != want {
			t.Errorf("live fixture %d with extra edits: %s, want %s", id, got, want)
		}
	}
	// A sample of the others: every knock-out fixture, and regular ones
	// (reading a history costs a consumer each).
	sample := 0
	for _, f := range w.fixtures {
		if slices.Contains(sum.LiveFixtures, f.ID) || (f.Stage == model.Regular && sample >= 40) {
			continue
		}
		if f.Stage == model.Regular {
			sample++
		}
		h := history(t, editStore, f)
		if f.Stage == model.Playoff {
			want := "TIMED TIMED TIMED TIMED TIMED IN_PLAY FINISHED"
			if got := statuses(h); got != want || h[3].HomeTeamID != 0 || h[3].HomePlaceholder == "" || h[4].HomeTeamID != f.HomeTeamID {
				t.Errorf("knock-out fixture %d: %s, want %s; placeholder %q, then team %d", f.ID, got, want, h[3].HomePlaceholder, h[4].HomeTeamID)
			}
			if got := statuses(history(t, plainStore, f)); got != "TIMED TIMED IN_PLAY FINISHED" {
				t.Errorf("knock-out fixture %d without extra edits: %s", f.ID, got)
			}
			continue
		}
		if len(h) != 4 || h[0].Odds == nil || h[3].Odds != nil {
			t.Errorf("fixture %d: %d revisions with odds %v … %v, want 4 ending without odds", f.ID, len(h), h[0].Odds, h[len(h)-1].Odds)
		}
		if f.Status == model.Finished && f.Awarded == "" && h[0].Result.FullTime.Home != f.Result.FullTime.Home+1 {
			t.Errorf("fixture %d: first revision %v is not the wrong score corrected later to %v", f.ID, h[0].Result.FullTime, f.Result.FullTime)
		}
	}
}

// TestRefusals: bad knobs are named, and a second run into the same
// stream would duplicate seasons.
func TestRefusals(t *testing.T) {
	ctx := ctxT(t)
	for _, tc := range []struct {
		cfg  generate.Config
		knob string
	}{
		{generate.Config{Leagues: 5000}, "leagues"},
		{generate.Config{Seasons: 2, Fixtures: 1000}, "seasons"},
		{generate.Config{MinTeams: 3}, "min teams"},
		{generate.Config{MinTeams: 20, MaxTeams: 19}, "max teams"},
		{generate.Config{MinTeams: 19, MaxTeams: 19}, "even"},
		{generate.Config{TournamentEvery: -2}, "tournament"},
		{generate.Config{SquadSize: 100}, "squad size"},
		{generate.Config{LiveUpdates: 80}, "live updates"},
		{generate.Config{ExtraEdits: -1}, "extra edits"},
		{generate.Config{FirstYear: 2990, Seasons: 20}, "seasons"},
		{generate.Config{FirstYear: 2990, Fixtures: 1_000_000, Leagues: 1}, "fixtures"},
	} {
		_, err := generate.Run(ctx, nil, tc.cfg, nil)
		if model.ErrorCode(err) != model.Invalid || !strings.Contains(err.Error(), tc.knob) {
			t.Errorf("%+v: got %v, want an invalid error naming %q", tc.cfg, err, tc.knob)
		}
	}
	s := natstest.MustOpen(t, natstest.MustStart(t))
	cfg := generate.Config{Leagues: 1, Seasons: 1, MinTeams: 4, MaxTeams: 4, TournamentEvery: -1, SquadSize: 11}
	mustRun(t, s, cfg)
	before, _ := s.LastSeq(ctx)
	_, err := generate.Run(ctx, s, cfg, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.Conflict {
		t.Errorf("second run: got %v, want a conflict", err)
	}
	if after, _ := s.LastSeq(ctx); after != before {
		t.Errorf("refused run published %d messages", after-before)
	}
}
