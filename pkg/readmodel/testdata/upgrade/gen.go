//go:build ignore

// gen writes stream.jsonl.gz and manifest.json beside it: the event stream
// an earlier release's ingest writes when it imports a few real files and
// makes a few edits, for TestStreamOfAnEarlierRelease (upgrade_test.go).
// Run from the repository's root, with ../shared/data beside it:
//
//	go run ./pkg/readmodel/testdata/upgrade/gen.go [-commit 36d3060]
//
// It exports the commit's tree (git archive), builds that tree's
// cmd/ingest, runs it against an embedded NATS server of today's code
// (the server stores what it is sent; the old ingest creates its stream),
// and dumps every message of the stream in order: subject, the headers the
// writer set (not the server's Nats-* ones, which only steer a
// publication), and the body.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// message is one stored message.
type message struct {
	Subject string              `json:"subject"`
	Header  map[string][]string `json:"header,omitempty"`
	Data    string              `json:"data"`
}

// edit is one change made with the earlier ingest, by the names of what it
// changes so that the test can make it again with today's editor.
type edit struct {
	Op     string `json:"op"` // result, deduct, rename, squad, client-add, client-revoke
	League string `json:"league,omitempty"`
	Year   int    `json:"year,omitempty"`
	// The fixture of a result, by its teams' names.
	Home     string `json:"home,omitempty"`
	Away     string `json:"away,omitempty"`
	Score    string `json:"score,omitempty"`
	HalfTime string `json:"halfTime,omitempty"`
	// The team of a deduction, a rename or a squad.
	Team   string `json:"team,omitempty"`
	Points int    `json:"points,omitempty"`
	Reason string `json:"reason,omitempty"`
	// A rename's new names.
	Name      string `json:"name,omitempty"`
	ShortName string `json:"shortName,omitempty"`
	Code      string `json:"code,omitempty"`
	// A squad's players.
	Players []player `json:"players,omitempty"`
	// A client's.
	Client    string `json:"client,omitempty"`
	Tier      string `json:"tier,omitempty"`
	PerMinute int    `json:"perMinute,omitempty"`
}

type player struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Position    string `json:"position"`
	Nationality string `json:"nationality"`
}

type manifest struct {
	Commit string   `json:"commit"`
	Files  []string `json:"files"` // under ../shared/data/openfootball-football-json
	Edits  []edit   `json:"edits"`
	// Tokens are those the earlier ingest printed, by client.
	Tokens map[string]string `json:"tokens"`
}

var edits = []edit{
	{Op: "result", League: "PL", Year: 2015, Home: "Manchester United", Away: "Tottenham Hotspur", Score: "2-2", HalfTime: "1-1"},
	{Op: "result", League: "BL1", Year: 2015, Home: "Bayern München", Away: "Hamburger SV", Score: "1-3", HalfTime: "0-2"},
	{Op: "deduct", League: "PL", Year: 2015, Team: "Aston Villa", Points: 3, Reason: "a test of an earlier release's deduction"},
	{Op: "squad", Team: "Leicester City", Players: []player{
		{ID: 1, Name: "Kasper Schmeichel", Position: "Keeper", Nationality: "Denmark"},
		{ID: 2, Name: "Jamie Vardy", Position: "Centre-Forward", Nationality: "England"}}},
	{Op: "rename", Team: "Leicester City", Name: "Leicester City FC", ShortName: "Leicester", Code: "LEI"},
	{Op: "client-add", Client: "acme", Tier: "donating", PerMinute: 120},
	{Op: "client-add", Client: "gone", Tier: "registered", PerMinute: 50},
	{Op: "client-revoke", Client: "gone"},
}

var files = []string{"2015-16/en.1.json", "2015-16/de.1.json", "2015-16/uefa.cl.json"}

func main() {
	commit := flag.String("commit", "36d3060", "the earlier release")
	out := flag.String("out", "pkg/readmodel/testdata/upgrade", "where to write")
	flag.Parse()
	if err := generate(*commit, *out); err != nil {
		log.Fatal(err)
	}
}

func generate(commit, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	full, err := exec.Command("git", "rev-parse", commit).Output()
	if err != nil {
		return fmt.Errorf("git rev-parse %s: %w", commit, err)
	}
	m := manifest{Commit: strings.TrimSpace(string(full)), Files: files, Edits: edits, Tokens: map[string]string{}}
	tmp, err := os.MkdirTemp("", "upgrade-gen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ingestBin, err := buildIngest(ctx, m.Commit, tmp)
	if err != nil {
		return err
	}

	srv, err := natsembed.Start(natsembed.Options{Dir: filepath.Join(tmp, "nats")})
	if err != nil {
		return err
	}
	defer srv.Stop()
	in := ingester{bin: ingestBin, url: srv.URL()}
	data := filepath.Join("..", "shared", "data", "openfootball-football-json")
	args := []string{"import", "openfootball"}
	for _, f := range files {
		args = append(args, filepath.Join(data, f))
	}
	if _, err := in.run(ctx, args...); err != nil {
		return err
	}

	nc, err := nats.Connect(srv.URL())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	if err := makeEdits(ctx, js, in, tmp, m.Tokens); err != nil {
		return err
	}

	msgs, err := dump(ctx, js)
	if err != nil {
		return err
	}
	return write(out, msgs, m)
}

// buildIngest exports the commit's tree (git archive) under tmp and builds
// its cmd/ingest there; it returns the binary.
func buildIngest(ctx context.Context, commit, tmp string) (string, error) {
	src := filepath.Join(tmp, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("sh", "-c", "git archive "+commit+" | tar -x -C "+src)
	if b, err := archive.CombinedOutput(); err != nil {
		return "", fmt.Errorf("export %s: %w\n%s", commit, err, b)
	}
	ingestBin := filepath.Join(tmp, "ingest")
	build := exec.CommandContext(ctx, "go", "build", "-o", ingestBin, "./cmd/ingest")
	build.Dir = src
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the earlier ingest: %w\n%s", err, b)
	}
	return ingestBin, nil
}

// ingester runs the earlier ingest against the NATS server at url.
type ingester struct {
	bin, url string
}

// run runs one command of the earlier ingest and returns what it printed.
func (in ingester) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, in.bin, append([]string{"--nats", in.url, "--editor", "earlier-release"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("ingest %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// tokenRE finds the token `client add` prints.
var tokenRE = regexp.MustCompile(`(?m)^token: ([a-z1-9]+)$`)

// makeEdits makes the edits with the earlier ingest, in order, each by the
// ids the stream holds when it is made, and records the tokens printed.
func makeEdits(ctx context.Context, js jetstream.JetStream, in ingester, tmp string, tokens map[string]string) error {
	for _, e := range edits {
		msgs, err := dump(ctx, js)
		if err != nil {
			return err
		}
		args, err := editArgs(index(msgs), e, tmp)
		if err != nil {
			return err
		}
		printed, err := in.run(ctx, args...)
		if err != nil {
			return err
		}
		if e.Op == "client-add" {
			t := tokenRE.FindStringSubmatch(printed)
			if t == nil {
				return fmt.Errorf("client add printed no token:\n%s", printed)
			}
			tokens[e.Client] = t[1]
		}
	}
	return nil
}

// editArgs is the earlier ingest's command line for e, its names looked up
// in w; a squad's players go in a file under tmp.
func editArgs(w world, e edit, tmp string) ([]string, error) {
	switch e.Op {
	case "result":
		c, err := w.competition(e.League, e.Year)
		if err != nil {
			return nil, err
		}
		f, err := w.fixture(c, w.teams[e.Home], w.teams[e.Away])
		if err != nil {
			return nil, err
		}
		return []string{"result", strconv.Itoa(f), "--score", e.Score, "--half-time", e.HalfTime}, nil
	case "deduct":
		c, err := w.competition(e.League, e.Year)
		if err != nil {
			return nil, err
		}
		return []string{"deduct", "--competition", strconv.Itoa(c), "--team", strconv.Itoa(w.teams[e.Team]), "--points", strconv.Itoa(e.Points), "--reason", e.Reason}, nil
	case "rename":
		return []string{"team", "put", "--id", strconv.Itoa(w.teams[e.Team]), "--name", e.Name, "--short-name", e.ShortName, "--code", e.Code}, nil
	case "squad":
		file := filepath.Join(tmp, "squad.json")
		b, err := json.Marshal(e.Players)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return nil, err
		}
		return []string{"squad", "put", "--team", strconv.Itoa(w.teams[e.Team]), file}, nil
	case "client-add":
		return []string{"client", "add", e.Client, "--tier", e.Tier, "--per-minute", strconv.Itoa(e.PerMinute)}, nil
	case "client-revoke":
		return []string{"client", "revoke", e.Client}, nil
	}
	return nil, fmt.Errorf("unknown edit %q", e.Op)
}

// write writes stream.jsonl.gz (the messages, one JSON object a line) and
// manifest.json under out.
func write(out string, msgs []message, m manifest) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	for _, msg := range msgs {
		if err := enc.Encode(msg); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "stream.jsonl.gz"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	log.Printf("%d messages, %d bytes compressed", len(msgs), buf.Len())
	return os.WriteFile(filepath.Join(out, "manifest.json"), append(mb, '\n'), 0o644)
}

// dump reads every message of the stream FOOTBALL in order.
func dump(ctx context.Context, js jetstream.JetStream) ([]message, error) {
	stream, err := js.Stream(ctx, "FOOTBALL")
	if err != nil {
		return nil, err
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return nil, err
	}
	var msgs []message
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		raw, err := stream.GetMsg(ctx, seq)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", seq, err)
		}
		msg := message{Subject: raw.Subject, Data: string(raw.Data)}
		for k, v := range raw.Header {
			if !strings.HasPrefix(k, "Nats-") {
				if msg.Header == nil {
					msg.Header = map[string][]string{}
				}
				msg.Header[k] = v
			}
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// world finds ids by names in the last message of each subject.
type world struct {
	teams    map[string]int
	comps    map[string]int // "PL/2015" → id
	fixtures map[[3]int]int // competition, home, away → id
}

func index(msgs []message) world {
	last := map[string]string{}
	for _, m := range msgs {
		last[m.Subject] = m.Data
	}
	w := world{teams: map[string]int{}, comps: map[string]int{}, fixtures: map[[3]int]int{}}
	for subject, body := range last {
		var env struct {
			Data struct {
				ID            int    `json:"id"`
				Name          string `json:"name"`
				League        string `json:"league"`
				Year          int    `json:"year"`
				CompetitionID int    `json:"competitionId"`
				Home          int    `json:"homeTeamId"`
				Away          int    `json:"awayTeamId"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(body), &env) != nil {
			continue
		}
		d := env.Data
		switch kind := strings.Split(subject, ".")[1]; kind {
		case "team":
			w.teams[d.Name] = d.ID
		case "competition":
			w.comps[fmt.Sprintf("%s/%d", d.League, d.Year)] = d.ID
		case "fixture":
			w.fixtures[[3]int{d.CompetitionID, d.Home, d.Away}] = d.ID
		}
	}
	return w
}

func (w world) competition(league string, year int) (int, error) {
	id, ok := w.comps[fmt.Sprintf("%s/%d", league, year)]
	if !ok {
		return 0, fmt.Errorf("no competition %s/%d", league, year)
	}
	return id, nil
}

func (w world) fixture(comp, home, away int) (int, error) {
	id, ok := w.fixtures[[3]int{comp, home, away}]
	if !ok {
		return 0, fmt.Errorf("no fixture %d v %d in competition %d", home, away, comp)
	}
	return id, nil
}
