package readmodel_test

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestEventsOfANewerRelease is the other half of the compatibility rule
// (package events, "Compatibility"): what a replica of this build does with
// messages a newer release writes while replicas are rolled. A field it
// does not know is ignored (the fast decoders decline such a message and
// encoding/json skips the field); a kind it does not know, a newer schema
// version or a value of an enumeration it does not know is rejected:
// counted, logged with its subject, and skipped, and the replica goes on
// applying what follows.
func TestEventsOfANewerRelease(t *testing.T) {
	var logs bytes.Buffer
	m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return t0 }, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	m.MarkReady()
	seq := uint64(0)
	apply := func(subject string, body []byte) {
		seq++
		kind, key, _ := events.KeyOf(subject)
		m.Apply(events.Event{Kind: kind, Key: key, Subject: subject, Seq: seq, Time: t0, Data: body})
	}
	for _, v := range append(teams(), league(10, 2017, gd)) {
		msg := event(t, 0, v)
		apply(msg.Subject, msg.Data)
	}
	fixture := played(100, 10, 1, alpha, bravo, "2-1")
	squad := &model.Squad{TeamID: alpha, Players: []model.Player{{ID: 1, Name: "Keeper", Position: "Keeper", Nationality: "Spain"}}}
	client := &model.Client{Name: "acme", Tier: model.TierRegistered, PerMinute: 50, TokenHash: model.HashToken("acme")}
	// with adds a field after each opening in at (such as `"data":{`, the
	// entity itself) of v's encoded body, as a newer release writing more
	// would.
	with := func(v any, at ...string) []byte {
		body := string(event(t, 0, v).Data)
		for _, open := range at {
			if !strings.Contains(body, open) {
				t.Fatalf("%s has no %s", body, open)
			}
			body = strings.Replace(body, open, open+`"addedLater":{"x":[1,"y"]},`, 1)
		}
		return []byte(body)
	}
	const entity = `"data":{`
	tests := []struct {
		name    string
		subject string
		body    []byte
		// rejected says the message is counted and skipped; else check
		// tells that the model serves the entity as written without the
		// additions.
		rejected bool
		check    func(readmodel.Snapshot) bool
	}{
		{"a fixture with fields added", "football.fixture.10.100", with(fixture, entity, `"result":{`, `"fullTime":{`), false, func(s readmodel.Snapshot) bool {
			f, ok := s.Fixture(100)
			return ok && reflect.DeepEqual(f.Fixture, *fixture)
		}},
		{"a squad with fields added", "football.squad.1", with(squad, entity, `"players":[{`), false, func(s readmodel.Snapshot) bool {
			q, ok := s.Squad(alpha)
			return ok && reflect.DeepEqual(q.Players, squad.Players)
		}},
		{"a competition with fields added to its rules", "football.competition.10", with(league(10, 2017, gd), entity, `"rules":{`), false, func(s readmodel.Snapshot) bool {
			c, ok := s.Competition(10)
			return ok && reflect.DeepEqual(c.Rules, league(10, 2017, gd).Rules)
		}},
		{"a client with fields added", "football.client.acme", with(client, entity), false, func(s readmodel.Snapshot) bool {
			c, ok := s.Client(client.TokenHash)
			return ok && c == *client
		}},
		{"a kind this build does not know", "football.referee.7", []byte(`{"v":1,"data":{"id":7,"name":"A. Referee"}}`), true, nil},
		{"a newer schema version", "football.team.9", []byte(`{"v":2,"data":{"id":9,"name":"Newer FC"}}`), true, nil},
		{"a status this build does not know", "football.fixture.10.101",
			[]byte(strings.Replace(string(event(t, 0, timed(101, 10, 2, charlie, delta, kickoff(2))).Data), `"TIMED"`, `"ABANDONED"`, 1)), true, nil},
	}
	for _, tt := range tests {
		before := m.Stats().DecodeErrors
		logs.Reset()
		apply(tt.subject, tt.body)
		rejected := m.Stats().DecodeErrors - before
		switch {
		case tt.rejected && (rejected != 1 || !strings.Contains(logs.String(), tt.subject)):
			t.Errorf("%s: %d rejections counted, log %q; want 1, naming %s", tt.name, rejected, logs.String(), tt.subject)
		case !tt.rejected && (rejected != 0 || !tt.check(m.Snapshot())):
			t.Errorf("%s: %d rejections (%s), served as written: %v; want it served as written", tt.name, rejected, m.Stats().LastDecodeError,
				rejected == 0 && tt.check(m.Snapshot()))
		}
	}
	// The replica went on: what follows the rejected messages is served.
	next := played(102, 10, 3, charlie, delta, "0-0")
	msg := event(t, 0, next)
	apply(msg.Subject, msg.Data)
	if _, ok := m.Snapshot().Fixture(102); !ok {
		t.Error("the fixture after the rejected messages is not served")
	}
}
