package livefake

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// FootballDataOrg is a local football-data.org v4
// (../shared/spec/football-data-v4-polling.md, section 7): the match lists
// of recorded competitions, one token, its plan's competitions, and its
// limit of calls in a fixed window that starts at the first call, counted
// down in X-Requests-Available-Minute and X-RequestCounter-Reset; past
// it, 429 with the recorded body. An unknown token gets 400, a
// competition outside the plan 403, with upstream's messages.
type FootballDataOrg struct {
	// URL is its base URL, http://127.0.0.1:PORT/v4.
	URL string
	srv *http.Server

	mu      sync.Mutex
	token   string
	plan    map[string]bool
	matches []map[string]any
	mode    string
	limit   int
	window  time.Duration
	start   time.Time
	used    int
	calls   map[string]int
	times   map[string][]time.Time
	refused int
}

// FootballDataOrgFreePlan is the free plan's calls a minute.
const FootballDataOrgFreePlan = 10

// The plan's competitions: the free plan's, as recorded.
var freePlan = []string{"WC", "CL", "BL1", "DED", "PD", "FL1", "ELC", "PPL", "EC", "SA", "PL", "BSA", "CLI"}

// NewFootballDataOrg serves the matches of lists (bodies of
// /v4/competitions/{id}/matches) to token, allowing limit calls a minute,
// on 127.0.0.1 at a port of its own.
func NewFootballDataOrg(token string, limit int, lists ...[]byte) (*FootballDataOrg, error) {
	o := &FootballDataOrg{token: token, plan: map[string]bool{}, limit: limit, window: time.Minute, calls: map[string]int{}, times: map[string][]time.Time{}}
	for _, c := range freePlan {
		o.plan[c] = true
	}
	for _, b := range lists {
		var l struct{ Matches []map[string]any }
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("not a v4 match list: %w", err)
		}
		o.matches = append(o.matches, l.Matches...)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o.URL = "http://" + ln.Addr().String() + "/v4"
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = o.srv.Serve(ln) }()
	return o, nil
}

// Close stops serving.
func (o *FootballDataOrg) Close() error { return o.srv.Close() }

// Edit changes match id, and moves its lastUpdated; it returns when.
func (o *FootballDataOrg) Edit(id int, change func(m map[string]any)) (time.Time, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	for _, m := range o.matches {
		if n, _ := m["id"].(float64); int(n) == id {
			change(m)
			m["lastUpdated"] = now.UTC().Format(time.RFC3339)
			return now, nil
		}
	}
	return now, fmt.Errorf("no match %d", id)
}

// SetMode makes it misbehave (ModeOK: serve again).
func (o *FootballDataOrg) SetMode(m string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mode = m
}

// SetToken changes the token it accepts.
func (o *FootballDataOrg) SetToken(t string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.token = t
}

// Calls counts the calls it answered 200, by kind: day, season.
func (o *FootballDataOrg) Calls() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.calls))
	for k, v := range o.calls {
		out[k] = v
	}
	return out
}

// Times are when the calls of a kind it answered came.
func (o *FootballDataOrg) Times(kind string) []time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.times[kind])
}

// Refused counts the 429s it answered.
func (o *FootballDataOrg) Refused() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refused
}

// fail answers an error as v4 does.
func fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": message, "errorCode": status})
}

// admit checks the token and counts the call in the window.
func (o *FootballDataOrg) admit(w http.ResponseWriter, r *http.Request) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r.Header.Get("X-Auth-Token") != o.token {
		fail(w, http.StatusBadRequest, "Your API token is invalid.")
		return false
	}
	now := time.Now()
	if now.Sub(o.start) >= o.window {
		o.start, o.used = now, 0
	}
	reset := int((o.window - now.Sub(o.start) + time.Second - 1) / time.Second)
	o.used++
	w.Header().Set("X-API-Version", "v4")
	w.Header().Set("X-RequestCounter-Reset", strconv.Itoa(reset))
	w.Header().Set("X-Requests-Available-Minute", strconv.Itoa(max(o.limit-o.used, 0)))
	if o.used > o.limit {
		o.refused++
		fail(w, http.StatusTooManyRequests, fmt.Sprintf("You reached your request limit. Wait %d seconds.", reset))
		return false
	}
	return true
}

func (o *FootballDataOrg) serve(w http.ResponseWriter, r *http.Request) {
	if !o.admit(w, r) {
		return
	}
	o.mu.Lock()
	mode := o.mode
	o.mu.Unlock()
	switch mode {
	case Mode500:
		http.Error(w, "upstream trouble", http.StatusInternalServerError)
		return
	case ModeHang:
		<-r.Context().Done()
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v4")
	var codes []string
	kind := "day"
	switch {
	case path == "/matches":
		if c := r.URL.Query().Get("competitions"); c != "" {
			codes = strings.Split(c, ",")
		}
	case strings.HasPrefix(path, "/competitions/") && strings.HasSuffix(path, "/matches"):
		codes, kind = []string{strings.TrimSuffix(strings.TrimPrefix(path, "/competitions/"), "/matches")}, "season"
	default:
		fail(w, http.StatusNotFound, "The resource you are looking for does not exist.")
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range codes {
		if !o.plan[c] {
			fail(w, http.StatusForbidden, "The resource you are looking for is restricted and apparently not within your permissions. Please check your subscription.")
			return
		}
	}
	from, _ := time.Parse(time.DateOnly, r.URL.Query().Get("dateFrom"))
	to, _ := time.Parse(time.DateOnly, r.URL.Query().Get("dateTo"))
	out := []map[string]any{}
	for _, m := range o.matches {
		comp, _ := m["competition"].(map[string]any)
		code, _ := comp["code"].(string)
		at, _ := time.Parse(time.RFC3339, fmt.Sprint(m["utcDate"]))
		if (len(codes) > 0 && !slices.Contains(codes, code)) || (!from.IsZero() && (at.Before(from) || !at.Before(to))) {
			continue
		}
		out = append(out, m)
	}
	o.calls[kind]++
	o.times[kind] = append(o.times[kind], time.Now())
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"filters": r.URL.Query(), "resultSet": map[string]any{"count": len(out)}, "matches": out})
}

// V4Unplayed is the change that makes a v4 match one not kicked off,
// kicking off at kickoff.
func V4Unplayed(kickoff time.Time) func(m map[string]any) {
	return func(m map[string]any) {
		m["utcDate"], m["status"] = kickoff.UTC().Format(time.RFC3339), "TIMED"
		m["score"] = v4Score("", nil, nil)
		delete(m, "minute")
		delete(m, "injuryTime")
	}
}

// v4Score is a score node: fullTime and halfTime, null where nil.
func v4Score(winner string, ft, ht []int) map[string]any {
	node := func(s []int) map[string]any {
		if s == nil {
			return map[string]any{"home": nil, "away": nil}
		}
		return map[string]any{"home": s[0], "away": s[1]}
	}
	var w any
	if winner != "" {
		w = winner
	}
	return map[string]any{"winner": w, "duration": "REGULAR", "fullTime": node(ft), "halfTime": node(ht)}
}

// v4Live sets a match's state as v4 shows it live: status, minute (a
// string, as upstream sometimes sends it) and scores.
func v4Live(status string, minute int, ft, ht []int) func(m map[string]any) {
	return func(m map[string]any) {
		m["status"], m["score"] = status, v4Score("", ft, ht)
		delete(m, "minute")
		if minute > 0 {
			m["minute"], m["injuryTime"] = strconv.Itoa(minute), 0
		}
	}
}

// V4Script is a match as football-data.org shows it live: IN_PLAY at 0:0,
// a goal, PAUSED with the half-time score, IN_PLAY again, two goals, one
// taken back, FINISHED. The free plan lists no goals.
func V4Script() []Step {
	return []Step{
		{"kick-off", func(m map[string]any) {
			m["utcDate"] = time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
			v4Live("IN_PLAY", 1, []int{0, 0}, nil)(m)
		}, model.InPlay, "0-0", "", false},
		{"a goal", v4Live("IN_PLAY", 23, []int{1, 0}, nil), model.InPlay, "1-0", "", false},
		{"half time", v4Live("PAUSED", 0, []int{1, 0}, []int{1, 0}), model.Paused, "1-0", "1-0", false},
		{"the second half", v4Live("IN_PLAY", 46, []int{1, 0}, []int{1, 0}), model.InPlay, "1-0", "1-0", false},
		{"a goal", v4Live("IN_PLAY", 58, []int{1, 1}, []int{1, 0}), model.InPlay, "1-1", "1-0", false},
		{"a goal", v4Live("IN_PLAY", 71, []int{2, 1}, []int{1, 0}), model.InPlay, "2-1", "1-0", false},
		{"the goal taken back", v4Live("IN_PLAY", 73, []int{1, 1}, []int{1, 0}), model.InPlay, "1-1", "1-0", false},
		{"full time", func(m map[string]any) {
			m["status"], m["score"] = "FINISHED", v4Score("DRAW", []int{1, 1}, []int{1, 0})
			delete(m, "minute")
			delete(m, "injuryTime")
		}, model.Finished, "1-1", "1-0", false},
	}
}
