// Package livefake is a local stand-in for the live sources a feed
// follows (OpenLigaDB, football-data.org), for the tests and `make
// live-demo`: it serves
// recorded answers on a loopback port of its own, plays a match live by a
// script, and counts calls as the real source does, refusing those past
// its limit. It never reaches the network.
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

// OpenLigaDB is a local OpenLigaDB: one league's season as recorded, its
// matchdays, their "last changed" dates, and the matches the caller
// edits. Calls are counted in a fixed window that begins with the first
// call, as the real one counts its day; past the limit it answers 429.
type OpenLigaDB struct {
	// URL is its base URL, http://127.0.0.1:PORT.
	URL string
	srv *http.Server

	mu       sync.Mutex
	shortcut string
	season   int
	matches  []map[string]any
	changed  map[int]time.Time // matchday → last change
	mode     string
	limit    int
	window   time.Duration
	start    time.Time
	used     int
	calls    map[string]int
	times    []time.Time
	refused  int
}

// Modes of a misbehaving source.
const (
	ModeOK   = ""
	Mode500  = "500"  // every call answers 500
	ModeHang = "hang" // every call waits until the caller gives up
)

// NewOpenLigaDB serves season, a getmatchdata answer of a whole season
// (the league and season are its first match's), on 127.0.0.1 at a port
// of its own, allowing limit calls a window.
func NewOpenLigaDB(season []byte, limit int, window time.Duration) (*OpenLigaDB, error) {
	o := &OpenLigaDB{changed: map[int]time.Time{}, limit: limit, window: window, calls: map[string]int{}}
	if err := json.Unmarshal(season, &o.matches); err != nil || len(o.matches) == 0 {
		return nil, fmt.Errorf("the season is not an OpenLigaDB list of matches: %v", err)
	}
	o.shortcut, _ = o.matches[0]["leagueShortcut"].(string)
	y, _ := o.matches[0]["leagueSeason"].(float64)
	o.season = int(y)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o.URL = "http://" + ln.Addr().String()
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = o.srv.Serve(ln) }()
	return o, nil
}

// Close stops serving.
func (o *OpenLigaDB) Close() error { return o.srv.Close() }

// Shortcut and Season are the league and season it serves.
func (o *OpenLigaDB) Shortcut() string { return o.shortcut }
func (o *OpenLigaDB) Season() int      { return o.season }

// Edit changes match id, as an editor upstream does: its last update and
// its matchday's last change move. It returns when.
func (o *OpenLigaDB) Edit(id int, change func(m map[string]any)) (time.Time, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	for _, m := range o.matches {
		if n, _ := m["matchID"].(float64); int(n) == id {
			change(m)
			m["lastUpdateDateTime"] = now.Format("2006-01-02T15:04:05.000")
			o.changed[matchday(m)] = now
			return now, nil
		}
	}
	return now, fmt.Errorf("no match %d", id)
}

// Matchday is the matchday of match id (0: none such).
func (o *OpenLigaDB) Matchday(id int) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.matches {
		if n, _ := m["matchID"].(float64); int(n) == id {
			return matchday(m)
		}
	}
	return 0
}

func matchday(m map[string]any) int {
	g, _ := m["group"].(map[string]any)
	n, _ := g["groupOrderID"].(float64)
	return int(n)
}

// SetMode makes it misbehave (ModeOK: serve again).
func (o *OpenLigaDB) SetMode(m string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mode = m
}

// SetLimit changes the calls it allows a window.
func (o *OpenLigaDB) SetLimit(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.limit = n
}

// Calls counts the calls it answered, by kind: season, matchday,
// lastchange.
func (o *OpenLigaDB) Calls() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.calls))
	for k, v := range o.calls {
		out[k] = v
	}
	return out
}

// Times are when the calls it answered came, in order.
func (o *OpenLigaDB) Times() []time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.times)
}

// Refused counts the calls it refused past its limit.
func (o *OpenLigaDB) Refused() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refused
}

// admit counts a call and says how to answer it.
func (o *OpenLigaDB) admit() (over bool, mode string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	if now.Sub(o.start) >= o.window {
		o.start, o.used = now, 0
	}
	o.used++
	if o.used > o.limit {
		o.refused++
		return true, o.mode
	}
	return false, o.mode
}

func (o *OpenLigaDB) serve(w http.ResponseWriter, r *http.Request) {
	over, mode := o.admit()
	switch {
	case over:
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	case mode == Mode500:
		http.Error(w, "upstream trouble", http.StatusInternalServerError)
		return
	case mode == ModeHang:
		<-r.Context().Done()
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[1] != o.shortcut || parts[2] != strconv.Itoa(o.season) {
		http.NotFound(w, r)
		return
	}
	md := 0
	if len(parts) == 4 {
		md, _ = strconv.Atoi(parts[3])
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	o.mu.Lock()
	defer o.mu.Unlock()
	o.times = append(o.times, time.Now())
	switch {
	case parts[0] == "getmatchdata" && len(parts) == 3:
		o.calls["season"]++
		_ = json.NewEncoder(w).Encode(o.matches)
	case parts[0] == "getmatchdata" && len(parts) == 4:
		o.calls["matchday"]++
		out := []map[string]any{}
		for _, m := range o.matches {
			if matchday(m) == md {
				out = append(out, m)
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case parts[0] == "getlastchangedate" && len(parts) == 4:
		o.calls["lastchange"]++
		at := o.changed[md]
		if at.IsZero() {
			at = time.Date(2024, 3, 30, 13, 32, 50, 0, time.UTC)
		}
		fmt.Fprintf(w, "%q", at.Format("2006-01-02T15:04:05.000"))
	default:
		http.NotFound(w, r)
	}
}

// Step is one change of a match played live upstream, and the state the
// fixture must reach.
type Step struct {
	What   string
	Change func(m map[string]any)
	Status model.Status
	// Score is the running or final score, Half the half-time score
	// ("": none), as model.Score writes them (1-0).
	Score, Half string
	// Goals: the source lists the goals, so the fixture has one for
	// each (and one taken back is gone).
	Goals bool
}

// Reached reports whether f is in the state the step brings: its status,
// scores and, where the source lists them, one goal for each.
func (s Step) Reached(f model.Fixture) bool {
	half := ""
	if f.Result.HalfTime != nil {
		half = f.Result.HalfTime.String()
	}
	return f.Status == s.Status && f.Result.FullTime != nil && f.Result.FullTime.String() == s.Score && half == s.Half &&
		(!s.Goals || len(f.Goals) == f.Result.FullTime.Home+f.Result.FullTime.Away)
}

// Unplayed is the change that makes a match one not kicked off, kicking
// off at kickoff: nothing entered.
func Unplayed(kickoff time.Time) func(m map[string]any) {
	return func(m map[string]any) {
		m["matchDateTimeUTC"] = kickoff.UTC().Format(time.RFC3339)
		m["matchResults"], m["goals"], m["matchIsFinished"] = []any{}, []any{}, false
	}
}

// Script is a match as OpenLigaDB shows it live: 0:0 placeholder results
// at kick-off, goals without minute or scorer, the half-time result
// typed in, a goal taken back, and the final result with the whistle.
func Script() []Step {
	return []Step{
		{"kick-off", func(m map[string]any) {
			m["matchDateTimeUTC"] = time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
			m["matchResults"] = results(0, 0, 0, 0)
		}, model.InPlay, "0-0", "", true},
		{"a goal", func(m map[string]any) { m["goals"] = goals(1, 0) }, model.InPlay, "1-0", "", true},
		{"half time", func(m map[string]any) { m["matchResults"] = results(0, 0, 1, 0) }, model.InPlay, "1-0", "1-0", true},
		{"a goal", func(m map[string]any) { m["goals"] = goals(1, 0, 1, 1) }, model.InPlay, "1-1", "1-0", true},
		{"a goal", func(m map[string]any) { m["goals"] = goals(1, 0, 1, 1, 2, 1) }, model.InPlay, "2-1", "1-0", true},
		{"the goal taken back", func(m map[string]any) { m["goals"] = goals(1, 0, 1, 1) }, model.InPlay, "1-1", "1-0", true},
		{"full time", func(m map[string]any) {
			m["matchIsFinished"], m["matchResults"] = true, results(1, 1, 1, 0)
		}, model.Finished, "1-1", "1-0", true},
	}
}

// results are a match's two results: after 90 minutes (type 2) and at
// half time (type 1).
func results(ftHome, ftAway, htHome, htAway int) []any {
	return []any{
		map[string]any{"resultID": 1, "resultName": "Endergebnis", "pointsTeam1": ftHome, "pointsTeam2": ftAway, "resultOrderID": 1, "resultTypeID": 2},
		map[string]any{"resultID": 2, "resultName": "Halbzeitergebnis", "pointsTeam1": htHome, "pointsTeam2": htAway, "resultOrderID": 2, "resultTypeID": 1},
	}
}

// goals lists goals entered live, by the score after each (home, away,
// home, away, …): no minute, no scorer.
func goals(scores ...int) []any {
	var out []any
	for i := 0; i+1 < len(scores); i += 2 {
		out = append(out, map[string]any{"goalID": i/2 + 1, "scoreTeam1": scores[i], "scoreTeam2": scores[i+1], "matchMinute": nil,
			"goalGetterID": 0, "goalGetterName": "", "isPenalty": false, "isOwnGoal": false, "isOvertime": false, "comment": nil})
	}
	return out
}

// Goals is the change that lists a match's goals as entered live, by the
// score after each (home, away, home, away, …): a scripted change any
// number of which can be made, as `make bench` does.
func Goals(scores ...int) func(m map[string]any) {
	return func(m map[string]any) { m["goals"] = goals(scores...) }
}
