package httpapi

import (
	"testing"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestLiveStatusesAsEachVersionShowsThem: v1 shows its six, v4 its own;
// status=LIVE keeps every live one and nothing else.
func TestLiveStatusesAsEachVersionShowsThem(t *testing.T) {
	want := map[model.Status]struct {
		v1, v4 string
		live   bool
	}{
		model.Scheduled:       {"SCHEDULED", "SCHEDULED", false},
		model.Timed:           {"TIMED", "TIMED", false},
		model.InPlay:          {"IN_PLAY", "IN_PLAY", true},
		model.Paused:          {"IN_PLAY", "PAUSED", true},
		model.ExtraTime:       {"IN_PLAY", "EXTRA_TIME", true},
		model.PenaltyShootout: {"IN_PLAY", "PENALTY_SHOOTOUT", true},
		model.Finished:        {"FINISHED", "FINISHED", false},
		model.Suspended:       {"POSTPONED", "SUSPENDED", false},
		model.Postponed:       {"POSTPONED", "POSTPONED", false},
		model.Canceled:        {"CANCELED", "CANCELLED", false},
		model.AwardedStatus:   {"FINISHED", "AWARDED", false},
	}
	if len(want) != len(model.Statuses) {
		t.Fatalf("the table has %d statuses, the model %d", len(want), len(model.Statuses))
	}
	for st, w := range want {
		f := readmodel.Fixture{Fixture: model.Fixture{Status: st}}
		v4 := v4Status(&f)
		if got := string(v1Status(st)); got != w.v1 || v4 != w.v4 || statusIn(v4, []string{"LIVE"}) != w.live {
			t.Errorf("%s: v1 %s, v4 %s, LIVE %v; want %s, %s, %v", st, got, v4, statusIn(v4, []string{"LIVE"}), w.v1, w.v4, w.live)
		}
		if !statusIn(v4, []string{w.v4}) {
			t.Errorf("%s: status=%s does not keep it", st, w.v4)
		}
	}
}
