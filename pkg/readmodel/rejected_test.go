package readmodel_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestRejectedEventsAreLogged: an event the model cannot hold (here ids
// beyond 32 bits, as a writer before ids were checked could publish) is
// logged with its subject, sequence and reason, and what follows is
// applied as usual.
func TestRejectedEventsAreLogged(t *testing.T) {
	var logs bytes.Buffer
	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return t0 }, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	big := model.MaxID + 1
	huge := &model.Competition{ID: big, Caption: "Too big", League: "PL", Year: 2017, Type: model.TypeLeague, Tier: model.TierAnonymous,
		Rules: model.DefaultRules("PL", 2017)}
	ev := event(t, 7, huge)
	m.Apply(ev)
	for i, v := range teams() {
		m.Apply(event(t, uint64(10+i), v))
	}
	m.Apply(event(t, 20, league(10, 2017, gd)))
	m.MarkReady()
	var line struct {
		Level, Msg, Subject, Reason string
		Seq                         uint64
	}
	first, _, _ := strings.Cut(logs.String(), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if line.Level != "WARN" || line.Subject != ev.Subject || line.Seq != 7 || !strings.Contains(line.Reason, "2147483648") {
		t.Errorf("log line %+v, want a warning naming %s, seq 7 and the id", line, ev.Subject)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 {
		t.Errorf("%d log lines, want 1:\n%s", n, logs.String())
	}
	if _, ok := m.Snapshot().Competition(10); !ok {
		t.Error("the competition after the rejected one is not served")
	}
	if st := m.Stats(); st.DecodeErrors != 1 {
		t.Errorf("%d rejections counted", st.DecodeErrors)
	}
}

// TestMergedTeamIsNotServed: a team folded into another is neither served
// nor found by name.
func TestMergedTeamIsNotServed(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	f.m.MarkReady()
	if _, ok := f.snap().Team(echo); !ok {
		t.Fatal("echo is not served before the merge")
	}
	f.put(&model.Team{ID: echo, Name: "Echo FC", MergedInto: alpha})
	if _, ok := f.snap().Team(echo); ok {
		t.Error("a merged team is served")
	}
	for _, tm := range f.snap().SearchTeams("echo", model.TierDonating) {
		t.Errorf("a merged team is found by name: %+v", tm)
	}
}
