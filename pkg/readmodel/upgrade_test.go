package readmodel_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// upgradeManifest is testdata/upgrade/manifest.json: how the earlier
// release's stream was made (testdata/upgrade/gen.go).
type upgradeManifest struct {
	Commit string
	Files  []string
	Edits  []struct {
		Op, League, Home, Away, Score, HalfTime, Team, Reason, Name, ShortName, Code, Client, Tier string
		Year, Points, PerMinute                                                                    int
		Players                                                                                    []model.Player
	}
	Tokens map[string]string
}

type storedMsg struct {
	Subject string
	Header  nats.Header
	Data    string
}

func readUpgrade(t *testing.T) (upgradeManifest, []storedMsg) {
	t.Helper()
	var m upgradeManifest
	raw, err := os.ReadFile(filepath.Join("testdata", "upgrade", "manifest.json"))
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "upgrade", "stream.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []storedMsg
	lines := bufio.NewScanner(zr)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var msg storedMsg
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return m, msgs
}

// runModel runs a model on s until the test ends and waits until it is
// ready.
func runModel(t *testing.T, s *events.Store) *readmodel.Model {
	t.Helper()
	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return time.Date(2016, 7, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, s) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := m.WaitReady(wctx); err != nil {
		t.Fatalf("model not ready: %v", err)
	}
	return m
}

// waitServed waits until m serves the stream up to its last message.
func waitServed(t *testing.T, s *events.Store, m *readmodel.Model) {
	t.Helper()
	last, err := s.LastSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	natstest.CheckFor(t, time.Minute, 5*time.Millisecond, func() error {
		if served := m.Stats().ServedSeq; served < last {
			return fmt.Errorf("the model serves up to %d, want %d", served, last)
		}
		return nil
	})
}

// TestStreamOfAnEarlierRelease: a stream written by the earlier release
// named in testdata/upgrade (its ingest importing three real files and
// making edits; see gen.go and README.md there), published as stored into
// a fresh stream, gives today's read model, replaying it at start or
// following it live, what today's import of the same files with the same
// edits gives: the same competitions, tables, fixtures, teams, squads and
// clients, and no rejected event; the tokens the earlier release issued
// still work, and the one it revoked does not.
func TestStreamOfAnEarlierRelease(t *testing.T) {
	man, msgs := readUpgrade(t)

	earlier := natstest.MustOpen(t, natstest.MustStart(t))
	live := runModel(t, earlier)
	js, err := jetstream.New(earlier.Conn())
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range msgs {
		if _, err := js.PublishMsg(context.Background(), &nats.Msg{Subject: msg.Subject, Header: msg.Header, Data: []byte(msg.Data)}); err != nil {
			t.Fatalf("publish %s: %v", msg.Subject, err)
		}
	}
	waitServed(t, earlier, live)
	replayed := runModel(t, earlier)
	waitServed(t, earlier, replayed)

	today := natstest.MustOpen(t, natstest.MustStart(t))
	var files []string
	for _, f := range man.Files {
		files = append(files, natstest.SharedData(t, "openfootball-football-json", f))
	}
	if sum := natstest.Import(t, today, "openfootball", importer.Options{}, files...); len(sum.Rejected) > 0 {
		t.Fatalf("today's import rejected %v", sum.Rejected)
	}
	editAsToday(t, today, man)
	fresh := runModel(t, today)
	waitServed(t, today, fresh)
	want := upgradeView(fresh.Snapshot())

	for _, tt := range []struct {
		name string
		m    *readmodel.Model
	}{{"replayed", replayed}, {"followed live", live}} {
		if st := tt.m.Stats(); st.DecodeErrors != 0 || st.Applied == 0 {
			t.Errorf("%s: %d events applied, %d rejected (last: %s)", tt.name, st.Applied, st.DecodeErrors, st.LastDecodeError)
		}
		got := upgradeView(tt.m.Snapshot())
		if missing, extra := lineDiff(want, got); len(missing)+len(extra) > 0 {
			t.Errorf("%s: the earlier release's stream differs from today's import (%d lines of %d): today's only:\n%s\nthe earlier's only:\n%s",
				tt.name, len(missing)+len(extra), len(want), strings.Join(first(missing, 10), "\n"), strings.Join(first(extra, 10), "\n"))
		}
		s := tt.m.Snapshot()
		if c, ok := s.Client(model.HashToken(man.Tokens["acme"])); !ok || c.Name != "acme" || c.Tier != model.TierDonating {
			t.Errorf("%s: acme's token finds %+v (%v), want acme, donating", tt.name, c, ok)
		}
		if c, ok := s.Client(model.HashToken(man.Tokens["gone"])); ok {
			t.Errorf("%s: the revoked token finds %+v", tt.name, c)
		}
		rulesAsWritten(t, tt.name, s, msgs)
	}
	if len(want) < 1000 {
		t.Errorf("the view has %d lines: want every fixture of the three files in it", len(want))
	}
}

// rulesAsWritten checks that each competition's table rules are, field
// by field, those its message in the earlier stream holds: nothing of them
// is lost, renamed or added on the way in.
func rulesAsWritten(t *testing.T, name string, s readmodel.Snapshot, msgs []storedMsg) {
	t.Helper()
	written := map[int]any{}
	for _, msg := range msgs {
		if kind, _, _ := events.KeyOf(msg.Subject); kind != events.KindCompetition {
			continue
		}
		var env struct {
			Data struct {
				ID    int
				Rules any
			}
		}
		if err := json.Unmarshal([]byte(msg.Data), &env); err != nil {
			t.Fatal(err)
		}
		written[env.Data.ID] = env.Data.Rules
	}
	for id, want := range written {
		c, ok := s.Competition(id)
		if !ok {
			t.Errorf("%s: competition %d is not served", name, id)
			continue
		}
		var got any
		raw, err := json.Marshal(c.Rules)
		if err == nil {
			err = json.Unmarshal(raw, &got)
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: competition %d's rules read as %s, written as %v (%v)", name, id, raw, want, err)
		}
	}
	if len(written) == 0 {
		t.Error("the earlier stream has no competition")
	}
}

// editAsToday makes the manifest's edits with today's editor, finding what
// they change by name as the earlier ingest was told it by id.
func editAsToday(t *testing.T, s *events.Store, man upgradeManifest) {
	t.Helper()
	ctx := context.Background()
	ed := natstest.Editor(t, s)
	teams := map[string]int{}
	for _, tm := range natstest.All[model.Team](t, s, events.KindTeam) {
		teams[tm.Name] = tm.ID
	}
	comps := map[string]int{}
	for _, c := range natstest.All[model.Competition](t, s, events.KindCompetition) {
		comps[fmt.Sprintf("%s/%d", c.League, c.Year)] = c.ID
	}
	fixtures := map[[3]int]int{}
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		fixtures[[3]int{f.CompetitionID, f.HomeTeamID, f.AwayTeamID}] = f.ID
	}
	for _, e := range man.Edits {
		comp := comps[fmt.Sprintf("%s/%d", e.League, e.Year)]
		var err error
		switch e.Op {
		case "result":
			id, ok := fixtures[[3]int{comp, teams[e.Home], teams[e.Away]}]
			if !ok {
				t.Fatalf("today's import has no %s v %s in %s %d", e.Home, e.Away, e.League, e.Year)
			}
			ft, ferr := model.ParseScore("score", e.Score)
			ht, herr := model.ParseScore("half-time", e.HalfTime)
			if ferr != nil || herr != nil {
				t.Fatal(ferr, herr)
			}
			_, _, err = ed.PutFixture(ctx, id, true, func(f *model.Fixture) error {
				f.Status, f.Result.FullTime, f.Result.HalfTime = model.Finished, &ft, &ht
				return nil
			})
		case "deduct":
			_, _, err = ed.PutAdjustment(ctx, 0, func(a *model.Adjustment) error {
				*a = model.Adjustment{CompetitionID: comp, TeamID: teams[e.Team], Points: -e.Points, Reason: e.Reason}
				return nil
			})
		case "squad":
			_, err = ed.PutSquad(ctx, model.Squad{TeamID: teams[e.Team], Players: e.Players})
		case "rename":
			_, _, err = ed.PutTeam(ctx, teams[e.Team], func(tm *model.Team) error {
				tm.Name, tm.ShortName, tm.Code = e.Name, &e.ShortName, &e.Code
				return nil
			})
		case "client-add":
			_, _, err = ed.AddClient(ctx, model.Client{Name: e.Client, Tier: model.Tier(e.Tier), PerMinute: e.PerMinute})
		case "client-revoke":
			_, err = ed.RevokeClient(ctx, e.Client)
		default:
			t.Fatalf("unknown edit %q", e.Op)
		}
		if err != nil {
			t.Fatalf("%s: %v", e.Op, err)
		}
	}
}

// upgradeView is what the API shows of a snapshot's 2015 season, keyed by
// names, not ids (the two streams number things apart), one fact a line.
func upgradeView(s readmodel.Snapshot) []string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	score := func(sc *model.Score) string {
		if sc == nil {
			return "-"
		}
		return fmt.Sprintf("%d-%d", sc.Home, sc.Away)
	}
	teams := map[int]bool{}
	for _, c := range s.Competitions(2015) {
		key := fmt.Sprintf("%s/%d", c.League, c.Year)
		// Not the rules: a competition carries those its writer chose,
		// and today's importer chooses other ones for some leagues
		// (rulesAsWritten checks that they are read as written).
		add("competition %s %q %s tier %s matchdays %d (last %d) games %d", key, c.Caption, c.Type, c.Tier,
			c.NumberOfMatchdays, c.LastMatchday, c.NumberOfGames)
		ct, _ := s.CompetitionTeams(c.ID)
		for _, tm := range ct {
			teams[tm.ID] = true
			add("%s team %s", key, tm.Name)
		}
		fixtures, _ := s.CompetitionFixtures(c.ID, readmodel.FixtureFilter{})
		for _, f := range fixtures {
			add("%s fixture md %d %s %s %q %s %s v %s %s ft %s ht %s et %s p %s awarded %q", key, f.Matchday, f.Stage, f.Group, f.Round,
				f.Kickoff.UTC().Format(time.RFC3339), f.HomeTeamName, f.AwayTeamName, f.Status,
				score(f.Result.FullTime), score(f.Result.HalfTime), score(f.Result.ExtraTime), score(f.Result.Penalties), f.Awarded)
		}
		table, _ := s.Table(c.ID, c.LastMatchday)
		for _, st := range table.Standings {
			for _, r := range st.Rows {
				add("%s table md %d %s %d %s played %d points %d (adjusted %d) goals %d:%d", key, table.Matchday, st.Group, r.Position,
					r.TeamName, r.PlayedGames, r.Points, r.PointsAdjustment, r.Goals, r.GoalsAgainst)
			}
		}
	}
	for id := range teams {
		tm, _ := s.Team(id)
		add("team %s short %q code %q", tm.Name, deref(tm.ShortName), deref(tm.Code))
		if sq, ok := s.Squad(id); ok {
			for _, p := range sq.Players {
				add("squad %s %d %s %s %s", tm.Name, p.ID, p.Name, p.Position, p.Nationality)
			}
		}
	}
	for _, name := range []string{"acme", "gone"} {
		c, ok := s.ClientNamed(name)
		add("client %s %v %s %d %d", name, ok, c.Tier, c.PerMinute, c.PerDay)
	}
	slices.Sort(lines)
	return lines
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// lineDiff returns the lines only in want and only in got, both sorted.
func lineDiff(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	for _, l := range got {
		count[l]--
	}
	for l, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, l)
		}
		for ; n < 0; n++ {
			extra = append(extra, l)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

func first(lines []string, n int) []string { return lines[:min(n, len(lines))] }
