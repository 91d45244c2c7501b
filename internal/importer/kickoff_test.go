package importer

import (
	"testing"
	"time"
)

// TestEngKickoffIsKickoff checks the engsoccerdata rows' kick-off against
// the general kickoff with the clock "15:00", across the zones of the
// files and the days their clocks change.
func TestEngKickoffIsKickoff(t *testing.T) {
	tests := []struct{ zone, date string }{
		{"Europe/London", "1888-09-08"},
		{"Europe/London", "2016-03-27"}, // summer time begins
		{"Europe/London", "2016-10-30"}, // and ends
		{"Europe/Berlin", "1980-04-06"},
		{"Europe/Lisbon", "1992-09-27"},
		{"Europe/Istanbul", "2016-09-07"},
		{"America/New_York", "2019-03-10"},
		{"Africa/Johannesburg", "2010-06-11"},
		{"Europe/London", "2016-02-30"}, // not a date
		{"Europe/London", "16/08/2015"}, // not the format
	}
	for _, tt := range tests {
		zone, err := time.LoadLocation(tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		want, timed, wantErr := kickoff(tt.date, "15:00", zone)
		got, err := engKickoffAt(tt.date, zone)
		if !got.Equal(want) || (err == nil) != (wantErr == nil) || (err == nil && !timed) {
			t.Errorf("%s %s: got %v, %v; want %v, %v", tt.zone, tt.date, got, err, want, wantErr)
		}
		if err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s %s: error %q, want %q", tt.zone, tt.date, err, wantErr)
		}
	}
}
