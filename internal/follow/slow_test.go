package follow_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestSlowSourcesStarveNoFeed: four sources trickle 10 bytes a second,
// as many as the follower's poll slots, under the default fetch
// time-out of two minutes; a healthy feed due every 2 s keeps its
// interval: its first poll comes within the trickle's grace, and no two
// polls are more than twice its interval apart. The trickles are cut off
// as too slow.
func TestSlowSourcesStarveNoFeed(t *testing.T) {
	natstest.SkipShort(t, "polls at a real pace for about 15 seconds")
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if _, err := w.Write([]byte("          ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}))
	defer trickle.Close()
	var mu sync.Mutex
	var polls []time.Time
	w := newWorld(t)
	w.src.put("healthy/"+seasonFile, w.src.original())
	healthy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		polls = append(polls, time.Now())
		mu.Unlock()
		w.src.serve(rw, r)
	}))
	defer healthy.Close()

	ed := natstest.Editor(t, w.store)
	for i := range 4 {
		if _, err := ed.AddFeed(w.ctx, model.Feed{Name: fmt.Sprintf("trickle%d", i), Format: "openfootball", URL: trickle.URL + "/2025-26/en.1.json", EverySeconds: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ed.AddFeed(w.ctx, model.Feed{Name: "healthy", Format: "openfootball", URL: healthy.URL + "/healthy/" + seasonFile, EverySeconds: 2, CreateTeams: true}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w.start("a", func(c *follow.Config) {
		c.FetchTimeout, c.HeaderTimeout, c.Concurrency = 0, 0, 4 // the defaults: 2m, 30s
	})
	natstest.CheckFor(t, 40*time.Second, 50*time.Millisecond, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(polls) < 6 {
			return fmt.Errorf("the healthy feed was polled %d times in %s, want 6", len(polls), time.Since(start).Round(time.Second))
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	if first := polls[0].Sub(start); first > 5*time.Second {
		t.Errorf("the healthy feed's first poll came %s after the start, want within 5s", first.Round(time.Millisecond))
	}
	for i := 1; i < len(polls); i++ {
		if gap := polls[i].Sub(polls[i-1]); gap > 4*time.Second {
			t.Errorf("polls %d and %d of the healthy feed %s apart, want at most twice its 2s", i, i+1, gap.Round(time.Millisecond))
		}
	}
	fd, err := ed.Feed(w.ctx, "trickle0")
	if err != nil {
		t.Fatal(err)
	}
	st := w.waitStatus(fd, "a trickle cut off", func(st follow.Status) bool { return st.Failures > 0 })
	if !strings.Contains(st.LastError, "the body came too slowly") {
		t.Errorf("a trickle's error %q, want it cut off as too slow", st.LastError)
	}
}
