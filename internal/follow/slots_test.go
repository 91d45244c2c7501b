package follow

import (
	"context"
	"testing"
)

// TestSlots: feeds whose last poll failed take at most all slots but
// one; the last is for the others; with one slot, they share it.
func TestSlots(t *testing.T) {
	tests := []struct {
		n, failing, healthy int // slots, and the feeds that ask at once
		wantFailing         int // taken by failing feeds
		wantHealthy         int
	}{
		{4, 4, 1, 3, 1},
		{4, 0, 5, 0, 4},
		{4, 2, 3, 2, 2},
		{1, 2, 0, 1, 0},
		{2, 3, 1, 1, 1},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		s := newSlots(tt.n)
		try := func(failing bool, n int) int {
			got := 0
			for range n {
				// A poll that finds no slot waits; here it gives up at once.
				c, stop := context.WithCancel(ctx)
				if len(s.all) == cap(s.all) || failing && len(s.failing) == cap(s.failing) {
					stop()
				}
				if _, ok := s.take(c, failing); ok {
					got++
				}
				stop()
			}
			return got
		}
		gotFailing := try(true, tt.failing)
		gotHealthy := try(false, tt.healthy)
		if gotFailing != tt.wantFailing || gotHealthy != tt.wantHealthy {
			t.Errorf("%d slots, %d failing and %d healthy feeds: %d and %d polls run, want %d and %d",
				tt.n, tt.failing, tt.healthy, gotFailing, gotHealthy, tt.wantFailing, tt.wantHealthy)
		}
		cancel()
	}
}
