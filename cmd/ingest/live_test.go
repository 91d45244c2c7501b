package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// liveState is what a step of a live match leaves stored.
func liveState(f model.Fixture) string {
	score := func(s *model.Score) string {
		if s == nil {
			return "-"
		}
		return s.String()
	}
	var goals []string
	for _, g := range f.Goals {
		goals = append(goals, g.String())
	}
	return fmt.Sprintf("%s %d+%d ft %s ht %s goals [%s]", f.Status, f.Minute, f.InjuryTime, score(f.Result.FullTime), score(f.Result.HalfTime),
		strings.Join(goals, ", "))
}

// TestDocsLiveMatches runs docs/ingest.md's live match line by line: each
// line leaves the state it promises, one revision each, and the line that
// changes nothing writes nothing.
func TestDocsLiveMatches(t *testing.T) {
	c := newCLI(t)
	goalsSetup(t, c)
	s := natstest.MustOpen(t, c.srv)
	subject := events.FixtureSubject(1, 7)
	revisions := func() int {
		t.Helper()
		revs, err := s.History(context.Background(), subject)
		if err != nil {
			t.Fatal(err)
		}
		return len(revs)
	}
	want := []struct {
		state string
		revs  int // revisions the line writes
	}{
		{"IN_PLAY 0+0 ft 0-0 ht - goals []", 1},
		{"IN_PLAY 23+0 ft 1-0 ht - goals [23' Harry Kane]", 1},
		{"PAUSED 45+2 ft 1-0 ht 1-0 goals [23' Harry Kane]", 1},
		{"IN_PLAY 45+2 ft 1-0 ht 1-0 goals [23' Harry Kane]", 1},
		{"IN_PLAY 58+0 ft 1-1 ht 1-0 goals [23' Harry Kane, 58' Musiala]", 1},
		{"IN_PLAY 61+0 ft 1-0 ht 1-0 goals [23' Harry Kane]", 1},
		{"IN_PLAY 61+0 ft 1-0 ht 1-0 goals [23' Harry Kane]", 0},
		{"IN_PLAY 90+3 ft 2-0 ht 1-0 goals [23' Harry Kane, 90' Saka]", 1},
		{"FINISHED 0+0 ft 2-0 ht 1-0 goals [23' Harry Kane, 90' Saka]", 1},
	}
	lines := docBlock(t, "ingest.md", "## Live matches")
	if len(lines) != len(want) {
		t.Fatalf("the block has %d lines, the test knows %d", len(lines), len(want))
	}
	before := revisions()
	for i, line := range lines {
		out := c.ok(shellWords(line)[1:]...)
		f := natstest.All[model.Fixture](t, s, events.KindFixture)[subject]
		if got := liveState(f); got != want[i].state {
			t.Errorf("%s: %s, want %s\n%s", line, got, want[i].state, out)
		}
		after := revisions()
		if after-before != want[i].revs {
			t.Errorf("%s: %d revisions written, want %d\n%s", line, after-before, want[i].revs, out)
		}
		before = after
	}
}

// TestLiveRefusals: a minute that cannot be, or one for a match that is
// not live, exits 2 naming it and writes nothing.
func TestLiveRefusals(t *testing.T) {
	c := newCLI(t)
	goalsSetup(t, c)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"result", "7", "--score", "1-0", "--minute", "121"}, `ingest: result: minute "121": must be MINUTE[+STOPPAGE], the minute from 1 to 120`},
		{[]string{"result", "7", "--score", "1-0", "--minute", "45+x"}, `ingest: result: minute "45+x": the stoppage minutes after + must be from 1 to 30`},
		{[]string{"result", "7", "--score", "1-0", "--minute", "90", "--status", "FINISHED"}, `ingest: result: minute "90": only a live fixture`},
		{[]string{"result", "7", "--score", "1-0", "--status", "TIMED"}, `ingest: result: status "TIMED": a result is live, FINISHED, AWARDED or SUSPENDED`},
		{[]string{"result", "7", "--score", "1-0", "--half-time", "0-0", "--minute", "50", "--goal", "home 12 Kane"}, `ingest: result: half-time "0-0": the goals listed make 1-0 by half time`},
		{[]string{"status", "7", "extra-time"}, `ingest: status: status "EXTRA_TIME": only knock-out`},
	}
	c.ok("result", "7", "--score", "1-0", "--minute", "30", "--goal", "home 12 Kane")
	for _, tt := range tests {
		code, out, errOut := c.run(tt.args...)
		if code != exitInvalid || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.args, code, out, errOut, exitInvalid, tt.want)
		}
	}
}
