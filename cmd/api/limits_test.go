package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// TestLimitsHoldAcrossReplicas: a caller spreading requests over two
// replicas gets its limit once, not once per replica, and the refusals
// are 429s with the counter headers and Retry-After. The windows follow
// the wall clock whatever --now says, so that two demo replicas whose
// clocks were started ten minutes apart share them too.
func TestLimitsHoldAcrossReplicas(t *testing.T) {
	for _, clocks := range [][2]string{{"2026-03-13T12:00:00Z", "2026-03-13T12:00:00Z"}, {"2026-03-13T12:00:00Z", "2026-03-13T11:50:00Z"}} {
		t.Run("--now "+clocks[0]+" and "+clocks[1], func(t *testing.T) { limitsHold(t, clocks) })
	}
}

func limitsHold(t *testing.T, clocks [2]string) {
	flags := func(now string) []string { return []string{"--now", now, "--anonymous-per-day", "30"} }
	first := startReplica(t, "", flags(clocks[0])...)
	replicas := []*replica{first, startReplica(t, first.nats, flags(clocks[1])...)}
	store := replicas[0].store()
	token := addClient(t, store, "acme", model.TierRegistered, 50)
	for _, r := range replicas {
		r.waitApplied(store)
	}
	tests := []struct {
		name    string
		header  map[string]string
		limit   int
		lease   int
		resetAt int // the window's length in seconds
	}{
		{"client, per minute", map[string]string{"X-Auth-Token": token}, 50, 3, 60},
		{"anonymous, per day", nil, 30, 1, 24 * 3600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// All the requests in one wall-clock minute: a second window
			// would let more through, rightly. The sleep waits for the
			// clock, exactly as long as the minute has left: not for an
			// outcome.
			if sec := time.Now().Second(); sec > 50 {
				time.Sleep(time.Duration(61-sec) * time.Second)
			}
			allowed := 0
			for i := range tt.limit + 20 {
				resp := replicas[i%len(replicas)].do("GET", "/v1/competitions", tt.header)
				switch resp.status {
				case 200:
					allowed++
				case 429:
					reset, err := strconv.Atoi(resp.header.Get("Retry-After"))
					if err != nil || reset < 1 || reset > tt.resetAt || resp.header.Get("X-RequestCounter-Reset") != resp.header.Get("Retry-After") ||
						resp.header.Get("X-Requests-Available") != "0" {
						t.Errorf("429 headers: Retry-After %q, X-RequestCounter-Reset %q, X-Requests-Available %q", resp.header.Get("Retry-After"),
							resp.header.Get("X-RequestCounter-Reset"), resp.header.Get("X-Requests-Available"))
					}
				default:
					t.Fatalf("request %d: %d %s", i, resp.status, resp.body)
				}
			}
			t.Logf("%d of %d requests let through", allowed, tt.limit+20)
			// Each replica may hold one lease it has not spent when the
			// budget runs out: the documented margin.
			if margin := len(replicas) * tt.lease; allowed > tt.limit || allowed < tt.limit-margin {
				t.Errorf("%d of %d requests through two replicas, want at most %d and at least %d", allowed, tt.limit+20, tt.limit, tt.limit-margin)
			}
		})
	}
}
