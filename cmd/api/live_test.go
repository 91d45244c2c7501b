package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// smallWorld makes two teams, a competition and one fixture through the
// editor, as an editor would with the CLI.
func smallWorld(t *testing.T, s *events.Store) (ed *editor.Editor, fixture model.Fixture) {
	t.Helper()
	ctx := context.Background()
	ed = natstest.Editor(t, s)
	var ids []int
	for _, name := range []string{"Home FC", "Away FC"} {
		_, tm, err := ed.PutTeam(ctx, 0, func(t *model.Team) error { t.Name = name; return nil })
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tm.ID)
	}
	_, c, err := ed.PutCompetition(ctx, 0, func(c *model.Competition) error {
		*c = model.Competition{League: "PL", Year: 2025, Caption: "Test League 2025/26", Type: model.TypeLeague, NumberOfMatchdays: 2,
			Teams: []model.CompetitionTeam{{TeamID: ids[0]}, {TeamID: ids[1]}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, f, err := ed.PutFixture(ctx, 0, false, func(f *model.Fixture) error {
		*f = model.Fixture{CompetitionID: c.ID, Matchday: 1, Stage: model.Regular, Status: model.Timed,
			Kickoff: time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC), HomeTeamID: ids[0], AwayTeamID: ids[1]}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ed, *f
}

// TestLiveEditIsServedAtOnce: a result published after the replica is
// ready shows in the table and the fixture, under a new ETag.
func TestLiveEditIsServedAtOnce(t *testing.T) {
	r := startReplica(t, "", "--now", "2026-03-14T17:00:00Z")
	s := r.store()
	ed, f := smallWorld(t, s)
	r.waitApplied(s)
	before := r.do("GET", "/v1/competitions/1/leagueTable", nil)
	if !strings.Contains(string(before.body), `"playedGames":0`) {
		t.Fatalf("table before the result: %s", before.body)
	}
	if _, _, err := ed.PutFixture(context.Background(), f.ID, true, func(cur *model.Fixture) error {
		cur.Status, cur.Result.FullTime = model.Finished, &model.Score{Home: 2, Away: 1}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	published := time.Now()
	var after response
	// Every millisecond: the time to visible is logged.
	natstest.CheckFor(t, 10*time.Second, time.Millisecond, func() error {
		after = r.do("GET", "/v1/competitions/1/leagueTable", map[string]string{"If-None-Match": before.header.Get("ETag")})
		if after.status != 200 {
			return fmt.Errorf("the table under the old ETag %s: %d %s", before.header.Get("ETag"), after.status, after.body)
		}
		return nil
	})
	var table struct {
		Standing []struct {
			TeamName string `json:"teamName"`
			Points   int    `json:"points"`
		} `json:"standing"`
	}
	if err := json.Unmarshal(after.body, &table); err != nil || len(table.Standing) != 2 ||
		table.Standing[0].TeamName != "Home FC" || table.Standing[0].Points != 3 || table.Standing[1].Points != 0 {
		t.Fatalf("table after the result: %d %s", after.status, after.body)
	}
	t.Logf("edit visible after %s", time.Since(published))
	fx := r.do("GET", "/v1/fixtures/1", nil)
	if !strings.Contains(string(fx.body), `"status":"FINISHED"`) || !strings.Contains(string(fx.body), `"goalsHomeTeam":2`) {
		t.Errorf("fixture after the result: %s", fx.body)
	}
}

func TestGracefulShutdown(t *testing.T) {
	r := startReplica(t, "", "--drain", "400ms")
	r.do("GET", "/v1/competitions", nil)
	r.cancel()
	// Within 300 ms of the 400 ms drain.
	natstest.CheckFor(t, 300*time.Millisecond, time.Millisecond, func() error {
		if resp := r.do("GET", "/readyz", nil); resp.status != 503 || !strings.Contains(string(resp.body), "draining") {
			return fmt.Errorf("/readyz never said draining during the drain period: %d %s", resp.status, resp.body)
		}
		return nil
	})
	r.waitStopped(t, "")
}

func TestBadFlagsFailAtStart(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--cache-mb", "lots"}, "--cache-mb"},
		{[]string{"--season-switch", "June"}, "--season-switch"},
		{[]string{"--now", "yesterday"}, "--now"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--listen", "8080"}, "--listen"},
		{[]string{"--nats", "http://x"}, "--nats"},
		{[]string{"--public-url", "ftp://x"}, "public URL"},
		{[]string{"--nats-cert", "c.pem"}, "--nats-key"},
		{[]string{"--sse-keepalive", "0s"}, "--sse-keepalive"},
		{[]string{"--streams-per-ip", "0"}, "--streams-per-ip"},
		{[]string{"--streams-per-client", "many"}, "--streams-per-client"},
		{[]string{"--event-history", "-1"}, "--event-history"},
		{[]string{"--token-lookup-timeout", "1m"}, "--token-lookup-timeout"},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		args := append([]string{"--embedded-nats", t.TempDir(), "--nats", "nats://127.0.0.1:0", "--listen", "127.0.0.1:0"}, tt.args...)
		err := run(ctx, args, func(string) string { return "" }, &strings.Builder{}, &strings.Builder{})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %s", tt.args, err, tt.want)
		}
	}
}

// TestHelpIsTheFlagTable: --help lists every flag of docs/api.md's flag
// table in groups, on one line with its environment variable and its
// default, and ends with an example; a bad environment value is refused
// naming the flag and the variable.
func TestHelpIsTheFlagTable(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	page, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `--([a-z-]+)[^`]*`(?:, `--([a-z-]+)`)? \\| `(FD_[A-Z_]+)`(?:, `(FD_[A-Z_]+)`)? \\| ([^|]*) \\|").FindAllStringSubmatch(string(page), -1)
	if len(rows) < 20 {
		t.Fatalf("found %d rows of docs/api.md's flag table", len(rows))
	}
	for _, row := range rows {
		for i, name := range []string{row[1], row[2]} {
			if name == "" {
				continue
			}
			line := regexp.MustCompile(`(?m)^  --` + name + `\b.*$`).FindString(help)
			if line == "" || !strings.Contains(line, row[3+i]) {
				t.Errorf("--help has no line for --%s with %s: %q", name, row[3+i], line)
			}
		}
	}
	for _, want := range []string{"\nHTTP\n", "\nNATS\n", "\nWebhooks\n", "\nexample:\n  FD_NATS_URL="} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	_, err = parseConfig(nil, func(k string) string { return map[string]string{"FD_SSE_KEEPALIVE": "often"}[k] }, io.Discard)
	if err == nil || err.Error() != `--sse-keepalive "often" (from FD_SSE_KEEPALIVE): must be a duration more than 0 and at most 1m, such as 15s` {
		t.Errorf("FD_SSE_KEEPALIVE=often: %v", err)
	}
	if _, err := parseConfig([]string{"--access-log"}, func(string) string { return "" }, io.Discard); err != nil {
		t.Errorf("--access-log alone: %v", err)
	}
}

// TestVersionAndHelp: --version and --help answer without starting
// anything (no NATS listens at the address given).
func TestVersionAndHelp(t *testing.T) {
	for args, want := range map[string]string{"--version": "api version ", "--help": "-public-url"} {
		var out strings.Builder
		err := run(context.Background(), []string{args, "--nats", "nats://127.0.0.1:1"}, func(string) string { return "" }, &out, &strings.Builder{})
		if err != nil || !strings.Contains(out.String(), want) {
			t.Errorf("api %s: %v, output %q, want %q", args, err, out.String(), want)
		}
	}
}
