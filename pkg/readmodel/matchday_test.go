package readmodel_test

import (
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

func at(month time.Month, day, hour, minute int) time.Time {
	return time.Date(2017, month, day, hour, minute, 0, 0, time.UTC)
}

// calendar is a season of three matchdays over weekends in August 2017.
func calendar() []any {
	postponed := timed(7, 10, 3, bravo, charlie, at(time.August, 14, 20, 0))
	postponed.Status = model.Postponed
	comp := league(10, 2017, gd)
	comp.NumberOfMatchdays = 3
	return []any{comp,
		timed(1, 10, 1, alpha, bravo, at(time.August, 12, 15, 0)),
		timed(2, 10, 1, charlie, delta, at(time.August, 13, 15, 0)),
		timed(3, 10, 2, bravo, alpha, at(time.August, 19, 15, 0)),
		timed(4, 10, 2, delta, charlie, at(time.August, 20, 15, 0)),
		timed(5, 10, 3, alpha, delta, at(time.August, 21, 20, 0)),
		postponed,
	}
}

func TestCurrentMatchday(t *testing.T) {
	tests := []struct {
		name string
		now  time.Time
		want int
	}{
		{"before the first match", at(time.August, 1, 12, 0), 1},
		{"last and next of one matchday", at(time.August, 12, 16, 0), 1},
		{"otherwise the last match's matchday", at(time.August, 14, 12, 0), 1},
		{"last match over 60 hours ago", at(time.August, 16, 4, 0), 2},
		{"next match in under 36 hours", at(time.August, 20, 16, 0), 3},
		{"exactly 60 hours after the last match", at(time.August, 16, 3, 0), 1},
		{"a postponed game is not the last played", at(time.August, 14, 21, 0), 1},
		{"after the last match", at(time.August, 30, 12, 0), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFeed(t, tt.now)
			f.put(teams()...)
			f.put(calendar()...)
			f.m.MarkReady()
			c, ok := f.snap().Competition(10)
			if !ok {
				t.Fatal("competition not found")
			}
			if c.CurrentMatchday != tt.want {
				t.Errorf("current matchday at %s: got %d, want %d", tt.now, c.CurrentMatchday, tt.want)
			}
		})
	}
}

func TestTickMovesCurrentMatchday(t *testing.T) {
	f := newFeed(t, at(time.August, 14, 12, 0))
	f.put(teams()...)
	f.put(calendar()...)
	f.put(league(11, 2017, gd))
	f.m.MarkReady()
	before, _ := f.snap().Competition(10)
	other, _ := f.snap().Competition(11)

	// The clock alone does not move the matchday; Tick does.
	f.clock.Set(at(time.August, 16, 4, 0))
	if c, _ := f.snap().Competition(10); c.CurrentMatchday != 1 {
		t.Fatalf("before Tick: got matchday %d, want 1", c.CurrentMatchday)
	}
	f.m.Tick(f.clock.Now())
	after, _ := f.snap().Competition(10)
	if after.CurrentMatchday != 2 || after.Version == before.Version {
		t.Errorf("after Tick: matchday %d version %d, want 2 and a version other than %d", after.CurrentMatchday, after.Version, before.Version)
	}
	if c, _ := f.snap().Competition(11); c.Version != other.Version {
		t.Errorf("a competition whose matchday did not move got version %d, had %d", c.Version, other.Version)
	}
	f.m.Tick(f.clock.Now())
	if again, _ := f.snap().Competition(10); again.Version != after.Version {
		t.Errorf("a Tick that moves nothing changed the version from %d to %d", after.Version, again.Version)
	}
}

func TestCurrentSeason(t *testing.T) {
	tests := []struct {
		name  string
		month time.Month
		day   int
		now   time.Time
		want  int
	}{
		{"the day before the default switch", 0, 0, time.Date(2017, 5, 31, 23, 59, 59, 0, time.UTC), 2016},
		{"the default switch, 1 June", 0, 0, time.Date(2017, 6, 1, 0, 0, 0, 0, time.UTC), 2017},
		{"winter belongs to the season that started in summer", 0, 0, time.Date(2018, 1, 15, 0, 0, 0, 0, time.UTC), 2017},
		{"a configured switch", time.July, 15, time.Date(2017, 7, 14, 12, 0, 0, 0, time.UTC), 2016},
		{"a configured switch passed", time.July, 15, time.Date(2017, 7, 15, 0, 0, 0, 0, time.UTC), 2017},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readmodel.New(readmodel.Config{Now: func() time.Time { return tt.now }, SwitchMonth: tt.month, SwitchDay: tt.day})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Snapshot().CurrentSeason(); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// TestSnapshotAt checks that a snapshot takes its caller's reading of the
// wall clock only when the service's clock is the wall clock.
func TestSnapshotAt(t *testing.T) {
	wall := time.Date(2017, 8, 11, 20, 0, 0, 0, time.FixedZone("CEST", 2*60*60))
	tests := []struct {
		name  string
		now   func() time.Time
		wall  time.Time
		check func(t *testing.T, got time.Time)
	}{
		{"the wall clock takes the reading, in UTC", nil, wall, func(t *testing.T, got time.Time) {
			if !got.Equal(wall) || got.Location() != time.UTC {
				t.Errorf("got %s, want %s in UTC", got, wall)
			}
		}},
		{"the wall clock without a reading reads itself", nil, time.Time{}, func(t *testing.T, got time.Time) {
			if time.Since(got) > time.Minute || got.Location() != time.UTC {
				t.Errorf("got %s, want the wall clock's time in UTC", got)
			}
		}},
		{"a clock of its own ignores the reading", func() time.Time { return t0 }, wall, func(t *testing.T, got time.Time) {
			if !got.Equal(t0) {
				t.Errorf("got %s, want the model's clock, %s", got, t0)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readmodel.New(readmodel.Config{Now: tt.now})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, m.SnapshotAt(tt.wall).Now())
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, cfg := range []readmodel.Config{
		{SwitchMonth: 13},
		{SwitchMonth: time.February, SwitchDay: 29},
		{TickInterval: 10 * time.Minute},
		{MaxDelay: -time.Second},
	} {
		if _, err := readmodel.New(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestDefaultMatchdayOfFormerSeason(t *testing.T) {
	f := newFeed(t, time.Date(2018, 9, 1, 0, 0, 0, 0, time.UTC))
	f.put(teams()...)
	// A former season whose last games never took place: its current
	// matchday stays 1 (nothing ever kicked off), its table's default
	// is the last matchday.
	old := league(10, 2016, gd)
	f.put(old, timed(1, 10, 1, alpha, bravo, time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)))
	f.m.MarkReady()
	c, _ := f.snap().Competition(10)
	if c.DefaultMatchday != 6 || c.LastMatchday != 6 {
		t.Errorf("former season: default matchday %d, last %d; want 6 and 6", c.DefaultMatchday, c.LastMatchday)
	}
	if table, _ := f.snap().Table(10, 0); table.Matchday != 6 {
		t.Errorf("default table matchday: got %d, want 6", table.Matchday)
	}
}
