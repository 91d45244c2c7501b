package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// sse is one message of an event stream: an event, or a comment.
type sse struct {
	id, event, data, comment string
}

// eventStream is an open GET /v1/events.
type eventStream struct {
	t      *testing.T
	resp   *http.Response
	msgs   chan sse
	cancel context.CancelFunc
}

// openStream opens an event stream; it fails the test unless the answer
// is 200.
func (r *replica) openStream(t *testing.T, query string, header map[string]string) *eventStream {
	t.Helper()
	st, resp := r.tryStream(t, query, header)
	if st == nil {
		t.Fatalf("GET /v1/events%s: %d %s", query, resp.status, resp.body)
	}
	return st
}

// openStreamWait opens an event stream once the caller has a free slot:
// the replica frees a closed stream's once it sees the connection close.
func (r *replica) openStreamWait(t *testing.T, query string, header map[string]string) *eventStream {
	t.Helper()
	var st *eventStream
	natstest.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		var resp response
		if st, resp = r.tryStream(t, query, header); st == nil {
			if resp.status != http.StatusTooManyRequests {
				t.Fatalf("GET /v1/events%s: %d %s", query, resp.status, resp.body)
			}
			return fmt.Errorf("GET /v1/events%s: %d %s", query, resp.status, resp.body)
		}
		return nil
	})
	return st
}

// tryStream opens an event stream, or returns the response refusing it.
func (r *replica) tryStream(t *testing.T, query string, header map[string]string) (*eventStream, response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", r.base+"/v1/events"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, response{resp.StatusCode, resp.Header, body}
	}
	st := &eventStream{t: t, resp: resp, msgs: make(chan sse, 100), cancel: cancel}
	go func() {
		defer close(st.msgs)
		sc := bufio.NewScanner(resp.Body)
		var m sse
		for sc.Scan() {
			line := sc.Text()
			k, v, _ := strings.Cut(line, ": ")
			switch {
			case line == "":
				if m != (sse{}) {
					st.msgs <- m
				}
				m = sse{}
			case k == "":
				m.comment = v
			case k == "id":
				m.id = v
			case k == "event":
				m.event = v
			case k == "data":
				m.data = v
			}
		}
	}()
	t.Cleanup(st.close)
	return st, response{resp.StatusCode, resp.Header, nil}
}

func (st *eventStream) close() {
	st.cancel()
	st.resp.Body.Close()
}

// next is the next event, skipping comments; ok is false if the stream
// ended or nothing came within 10 s.
func (st *eventStream) next() (sse, bool) {
	st.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, open := <-st.msgs:
			if !open {
				return sse{}, false
			}
			if m.comment == "" {
				return m, true
			}
		case <-timeout:
			return sse{}, false
		}
	}
}

// expect reads the next events and checks their kinds, ids and updates.
func (st *eventStream) expect(want ...wantEvent) []sse {
	st.t.Helper()
	var got []sse
	for i, w := range want {
		m, ok := st.next()
		if !ok {
			st.t.Fatalf("event %d: none came, want %s", i, w.event)
		}
		got = append(got, m)
		var body struct {
			Resource, URI string
			ID            int `json:"Id"`
			Timestamp     time.Time
			Updates       json.RawMessage
		}
		if err := json.Unmarshal([]byte(m.data), &body); err != nil && w.event != "reset" {
			st.t.Fatalf("event %d: data %q: %v", i, m.data, err)
		}
		switch {
		case m.event != w.event:
			st.t.Errorf("event %d: got %s %s, want %s", i, m.event, m.data, w.event)
		case !w.id.MatchString(m.id):
			st.t.Errorf("event %d: id %q, want %s", i, m.id, w.id)
		case w.updates != "" && (string(body.Updates) != w.updates || !strings.HasSuffix(body.URI, w.uri)):
			st.t.Errorf("event %d: data %s, want updates %s and URI …%s", i, m.data, w.updates, w.uri)
		case w.event != "reset" && time.Since(body.Timestamp) > time.Minute:
			st.t.Errorf("event %d: timestamp %s, want the edit's", i, body.Timestamp)
		}
	}
	return got
}

type wantEvent struct {
	event   string
	id      *regexp.Regexp
	uri     string
	updates string
}

var (
	firstOfEdit  = regexp.MustCompile(`^\d+\.0$`)
	secondOfEdit = regexp.MustCompile(`^\d+\.1$`)
	anyID        = regexp.MustCompile(`^(\d+(\.\d+)?)?$`)
)

func setResult(t *testing.T, ed *editor.Editor, id, home, away int) {
	t.Helper()
	if _, _, err := ed.PutFixture(context.Background(), id, true, func(f *model.Fixture) error {
		f.Status, f.Result.FullTime = model.Finished, &model.Score{Home: home, Away: away}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestEventStream: an edit reaches open streams as the events it caused,
// restricted competitions only reach callers of their tier, streams
// resume with Last-Event-ID (or start over), and streams are requests
// like any other: filters, limits, caps.
func TestEventStream(t *testing.T) {
	r := startReplica(t, "", "--now", "2026-03-14T17:00:00Z", "--sse-keepalive", "50ms",
		"--event-history", "6", "--streams-per-client", "2", "--access-log", "--log-level", "info")
	s := r.store()
	ed, f := smallWorld(t, s)
	_, gold, err := ed.PutCompetition(context.Background(), 0, func(c *model.Competition) error {
		*c = model.Competition{League: "CL", Year: 2025, Caption: "Gold Cup 2025/26", Type: model.TypeLeague, NumberOfMatchdays: 2,
			Tier: model.TierDonating, Teams: []model.CompetitionTeam{{TeamID: f.HomeTeamID}, {TeamID: f.AwayTeamID}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, goldFixture, err := ed.PutFixture(context.Background(), 0, false, func(g *model.Fixture) error {
		*g = f
		g.ID, g.CompetitionID = 0, gold.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	regToken := addClient(t, s, "reg", model.TierRegistered, 1000)
	goldToken := addClient(t, s, "gold", model.TierDonating, 1000)
	r.waitApplied(s)

	reg := r.openStream(t, "", map[string]string{"X-Auth-Token": regToken})
	byLeague := r.openStream(t, "?league=PL&fixture="+strconv.Itoa(f.ID), map[string]string{"X-Auth-Token": regToken})
	golden := r.openStream(t, "?token="+goldToken, nil)
	if got := golden.resp.Header.Get("X-Authenticated-Client"); got != "gold" {
		t.Errorf("token in the query: authenticated as %q, want gold", got)
	}

	// The restricted competition's edit first: the registered client's
	// next event must be the public one. A live result is two messages
	// (kick-off, then the final whistle). The history of six holds the
	// six events of the two edits, however late a stream reads them.
	setResult(t, ed, goldFixture.ID, 0, 1)
	// The away win moves nobody (Away FC led on names at 0 points) but
	// changes both rows: a client that caches the table hears of it.
	home, away := strconv.Itoa(f.HomeTeamID), strconv.Itoa(f.AwayTeamID)
	unmoved, _ := json.Marshal(map[string][2]map[string]int{"leagueTable": {{away: 1, home: 2}, {away: 1, home: 2}}})
	golden.expect(wantEvent{"Fixture.Update", firstOfEdit, "/v1/fixtures/" + strconv.Itoa(goldFixture.ID), ""},
		wantEvent{"Fixture.Update", firstOfEdit, "/v1/fixtures/" + strconv.Itoa(goldFixture.ID), ""},
		wantEvent{"Competition.Update", secondOfEdit, "/v1/competitions/" + strconv.Itoa(gold.ID), string(unmoved)})
	setResult(t, ed, f.ID, 2, 1)
	kickOff := wantEvent{"Fixture.Update", firstOfEdit, "/v1/fixtures/" + strconv.Itoa(f.ID),
		`{"goalsAwayTeam":[null,1],"goalsHomeTeam":[null,2],"status":["TIMED","IN_PLAY"]}`}
	final := wantEvent{"Fixture.Update", firstOfEdit, "/v1/fixtures/" + strconv.Itoa(f.ID), `{"status":["IN_PLAY","FINISHED"]}`}
	// Away FC led on names at 0 points; the win puts Home FC first.
	moves, _ := json.Marshal(map[string][2]map[string]int{"leagueTable": {{away: 1, home: 2}, {away: 2, home: 1}}})
	tableUpdate := wantEvent{"Competition.Update", secondOfEdit, "/v1/competitions/" + strconv.Itoa(f.CompetitionID), string(moves)}
	first := reg.expect(kickOff, final, tableUpdate)
	byLeague.expect(kickOff, final)
	golden.expect(kickOff, final, tableUpdate)

	t.Run("keepalive", func(t *testing.T) {
		timeout := time.After(5 * time.Second)
		for {
			select {
			case m := <-reg.msgs:
				if m.comment == "keepalive" {
					return
				}
			case <-timeout:
				t.Fatal("no keepalive comment within 5s at --sse-keepalive 50ms")
			}
		}
	})
	t.Run("resume", func(t *testing.T) {
		reg.close()
		again := r.openStreamWait(t, "", map[string]string{"X-Auth-Token": regToken, "Last-Event-ID": first[0].id})
		again.expect(final, tableUpdate)
		again.close()
		// Three more edits, six events (3-1 moves nobody, and changes
		// both rows' goals): the history of six no longer holds what
		// followed the first.
		setResult(t, ed, f.ID, 3, 1)
		setResult(t, ed, f.ID, 3, 3)
		setResult(t, ed, f.ID, 4, 3)
		unmoved, _ := json.Marshal(map[string][2]map[string]int{"leagueTable": {{home: 1, away: 2}, {home: 1, away: 2}}})
		golden.expect(wantEvent{"Fixture.Update", firstOfEdit, "", `{"goalsHomeTeam":[2,3]}`},
			wantEvent{"Competition.Update", secondOfEdit, "/v1/competitions/" + strconv.Itoa(f.CompetitionID), string(unmoved)},
			wantEvent{"Fixture.Update", firstOfEdit, "", `{"goalsAwayTeam":[1,3]}`}, wantEvent{"Competition.Update", secondOfEdit, "", ""},
			wantEvent{"Fixture.Update", firstOfEdit, "", `{"goalsHomeTeam":[3,4]}`}, wantEvent{"Competition.Update", secondOfEdit, "", ""})
		late := r.openStreamWait(t, "", map[string]string{"X-Auth-Token": regToken, "Last-Event-ID": first[0].id})
		reset := late.expect(wantEvent{"reset", anyID, "", ""})
		late.close()
		if !strings.Contains(reset[0].data, `"error"`) || reset[0].id == "" {
			t.Errorf("reset: id %q data %s, want the place to go on from and a reason", reset[0].id, reset[0].data)
		}
	})
	t.Run("refused", func(t *testing.T) {
		cases := []struct {
			query  string
			header map[string]string
			status int
			want   string
		}{
			{"?competition=abc", nil, 400, "competition must be"},
			{"?team=1,,2", nil, 400, "team must be"},
			{"?fixture=0", nil, 400, "fixture must be"},
			{"?league=P", nil, 400, "league must be"},
			// Well formed, but nothing the stream could ever send: a
			// stream that stayed silent, or a typo that left it
			// unfiltered.
			{"?league=XX", nil, 400, "league XX does not exist; the leagues' codes are"},
			{"?league=PL,XX", nil, 400, "league XX does not exist"},
			{"?legue=PL", nil, 400, "legue is not a parameter of the event stream; it takes competition, league"},
			{"?league=PL&fixtures=1", nil, 400, "fixtures is not a parameter"},
			{"?competition=999999", nil, 400, "competition 999999 does not exist"},
			{"?team=999999", nil, 400, "team 999999 does not exist"},
			{"?fixture=999999", nil, 400, "fixture 999999 does not exist"},
			{"", map[string]string{"Last-Event-ID": "yesterday"}, 400, "Last-Event-ID"},
			{"", map[string]string{"Accept": "application/json"}, 406, "text/event-stream"},
			{"?token=nosuchtoken", nil, 400, "invalid API token"},
			// The client holds two streams (byLeague, golden is another
			// client's) plus this one: its cap of two.
			{"", map[string]string{"X-Auth-Token": regToken}, 0, ""},
			{"", map[string]string{"X-Auth-Token": regToken}, 429, "event streams open"},
		}
		for _, tc := range cases {
			if tc.status == 0 {
				r.openStreamWait(t, tc.query, tc.header)
				continue
			}
			st, resp := r.tryStream(t, tc.query, tc.header)
			if tc.status == 0 {
				if st == nil {
					t.Errorf("%s %v: %d %s, want a stream", tc.query, tc.header, resp.status, resp.body)
				}
				continue
			}
			if st != nil {
				t.Errorf("%s %v: a stream, want %d", tc.query, tc.header, tc.status)
				continue
			}
			var e struct{ Error string }
			if resp.status != tc.status || json.Unmarshal(resp.body, &e) != nil || !strings.Contains(e.Error, tc.want) {
				t.Errorf("%s %v: %d %s, want %d with an error naming %q", tc.query, tc.header, resp.status, resp.body, tc.status, tc.want)
			}
			if tc.status == 429 && resp.header.Get("Retry-After") != "" {
				t.Errorf("stream refused with Retry-After %q: nothing foretells when the caller frees a slot", resp.header.Get("Retry-After"))
			}
		}
	})
	t.Run("anonymous cap and limits", func(t *testing.T) {
		before := r.do("GET", "/v1/competitions", nil)
		anon := r.openStream(t, "", nil)
		avail := func(h http.Header) int { n, _ := strconv.Atoi(h.Get("X-Requests-Available")); return n }
		if a, b := avail(before.header), avail(anon.resp.Header); b != a-1 {
			t.Errorf("requests available: %d before, %d after opening a stream; want one less", a, b)
		}
		if _, resp := r.tryStream(t, "", nil); resp.status != 429 {
			t.Errorf("second anonymous stream from one address: %d %s, want 429", resp.status, resp.body)
		}
	})
	t.Run("token not logged", func(t *testing.T) {
		if logs := r.logs.String(); strings.Contains(logs, goldToken) || !strings.Contains(logs, `"path":"/v1/events"`) {
			t.Errorf("access log: the token shows, or the stream's request does not:\n%s", logs)
		}
	})
	t.Run("shutdown ends streams", func(t *testing.T) {
		r.cancel()
		for {
			if _, ok := golden.next(); !ok {
				break
			}
		}
		r.waitStopped(t, "with streams open")
	})
}

// TestEventsSameOnEveryReplica: replicas derive the same events with the
// same ids from the stream, so a client may resume on another replica.
func TestEventsSameOnEveryReplica(t *testing.T) {
	flags := []string{"--now", "2026-03-14T17:00:00Z", "--public-url", "https://api.example.org"}
	a := startReplica(t, "", flags...)
	b := startReplica(t, a.nats, flags...)
	s := a.store()
	ed, f := smallWorld(t, s)
	token := addClient(t, s, "reg", model.TierRegistered, 1000)
	a.waitApplied(s)
	b.waitApplied(s)
	auth := map[string]string{"X-Auth-Token": token}
	onA, onB := a.openStream(t, "", auth), b.openStream(t, "", auth)
	setResult(t, ed, f.ID, 1, 0)
	setResult(t, ed, f.ID, 1, 1)
	var got [2][]sse
	for i, st := range []*eventStream{onA, onB} {
		for range 5 {
			m, ok := st.next()
			if !ok {
				t.Fatalf("replica %d: %d events, want 5", i, len(got[i]))
			}
			got[i] = append(got[i], m)
		}
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("event %d differs:\n A %+v\n B %+v", i, got[0][i], got[1][i])
		}
	}
	onB.close()
	resumed := b.openStreamWait(t, "", map[string]string{"X-Auth-Token": token, "Last-Event-ID": got[0][2].id})
	for i := 3; i < 5; i++ {
		if m, ok := resumed.next(); !ok || m != got[0][i] {
			t.Errorf("resumed on B after A's %s: got %+v, want %+v", got[0][2].id, m, got[0][i])
		}
	}
}

// TestEventStreamIDFromTheFuture: a Last-Event-ID beyond the stream's
// last sequence names no event: the stream says reset at once, with the
// place to go on from, and then sends the live events. An id up to the
// stream's last resumes as usual.
func TestEventStreamIDFromTheFuture(t *testing.T) {
	r := startReplica(t, "", "--now", "2026-03-14T17:00:00Z", "--sse-keepalive", "50ms")
	s := r.store()
	ed, f := smallWorld(t, s)
	token := addClient(t, s, "reg", model.TierRegistered, 1000)
	// Finished first, so that each later score is one edit.
	setResult(t, ed, f.ID, 1, 0)
	r.waitApplied(s)
	lastSeq := func() uint64 {
		t.Helper()
		last, err := s.LastSeq(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return last
	}
	goals := 1
	for _, tc := range []struct {
		name  string
		id    func(last uint64) string
		reset bool
	}{
		{"beyond the stream", func(uint64) string { return "99999999.0" }, true},
		{"the last sequence there is", func(uint64) string { return "18446744073709551615" }, true},
		{"one past the stream's last", func(last uint64) string { return strconv.FormatUint(last+1, 10) + ".0" }, true},
		{"the stream's last", func(last uint64) string { return strconv.FormatUint(last, 10) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id(lastSeq())
			st := r.openStreamWait(t, "", map[string]string{"X-Auth-Token": token, "Last-Event-ID": id})
			defer st.close()
			if tc.reset {
				reset := st.expect(wantEvent{"reset", anyID, "", ""})
				if !strings.Contains(reset[0].data, "no event "+id) || reset[0].id == "" || reset[0].id == id {
					t.Errorf("reset: id %q data %s, want the place to go on from and a reason naming %s", reset[0].id, reset[0].data, id)
				}
			}
			goals++
			setResult(t, ed, f.ID, goals, 0)
			got := st.expect(wantEvent{"Fixture.Update", firstOfEdit, "/v1/fixtures/" + strconv.Itoa(f.ID), ""})
			if want := strconv.FormatUint(lastSeq(), 10) + ".0"; got[0].id != want {
				t.Errorf("live event %s, want the edit's, %s", got[0].id, want)
			}
		})
	}
}

// TestEventStreamSlotFreedOnClose: a stream's slot is free as soon as its
// client has closed the connection, not at a later keepalive: a browser
// that reconnects at once (one stream per address) gets its stream every
// time, and so does a client that closes its five streams and opens one.
// A caller at its cap is refused without a Retry-After: only it can free
// a slot.
func TestEventStreamSlotFreedOnClose(t *testing.T) {
	// The default keepalive, 15 s: a slot freed by a failed write would
	// come far too late for every reconnection here.
	r := startReplica(t, "", "--anonymous-per-day", "1000")
	s := r.store()
	token := addClient(t, s, "reg", model.TierRegistered, 1000)
	r.waitApplied(s)
	refused := func(t *testing.T, header map[string]string) {
		t.Helper()
		st, resp := r.tryStream(t, "", header)
		if st != nil {
			t.Fatal("a stream beyond the cap")
		}
		if resp.status != http.StatusTooManyRequests || resp.header.Get("Retry-After") != "" || !strings.Contains(string(resp.body), "as soon as you close one") {
			t.Errorf("beyond the cap: %d, Retry-After %q, %s; want 429 without Retry-After", resp.status, resp.header.Get("Retry-After"), resp.body)
		}
	}
	tests := []struct {
		name   string
		header map[string]string
		open   int // the caller's cap
		rounds int
	}{
		{"anonymous reconnects at once", nil, 1, 20},
		{"client closes its five and opens one", map[string]string{"X-Auth-Token": token}, 5, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var open []*eventStream
			for range tc.open {
				open = append(open, r.openStream(t, "", tc.header))
			}
			refused(t, tc.header)
			for i := range tc.rounds {
				for _, st := range open {
					st.close()
				}
				open = open[:0]
				st, resp := r.tryStream(t, "", tc.header)
				if st == nil {
					t.Fatalf("round %d: opening a stream after closing %d: %d %s, want the stream", i+1, tc.open, resp.status, resp.body)
				}
				open = append(open, st)
				for len(open) < tc.open {
					open = append(open, r.openStream(t, "", tc.header))
				}
			}
			refused(t, tc.header)
			for _, st := range open {
				st.close()
			}
		})
	}
}
