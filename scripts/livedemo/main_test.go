package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// TestLiveDemo runs make live-demo's program as make does (the binaries
// built, a step of a second): the address it prints answers, the match
// shows on /v4/matches?status=LIVE while it is played and leaves it at
// the final whistle, and each moment is printed.
func TestLiveDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin+"/", "../../cmd/api", "../../cmd/ingest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	stderr := &natstest.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--bin", bin, "--listen", "127.0.0.1:0", "--step", "1s", "--spec", natstest.SharedData(t, "..", "spec", "openligadb")}, w, stderr)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("live-demo: %v\n%s", err, stderr)
		}
	})
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var base string
	for line := range lines {
		if m := regexp.MustCompile(`curl '(http://[^/]+)/v4/matches\?status=LIVE'`).FindStringSubmatch(line); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatalf("live-demo printed no address:\n%s", stderr)
	}
	live := func() string {
		resp, err := http.Get(base + "/v4/matches?status=LIVE")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	natstest.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
		if body := live(); !strings.Contains(body, "Eintracht Braunschweig") {
			return fmt.Errorf("the match is not on /v4/matches?status=LIVE: %.300s", body)
		}
		return nil
	})
	var printed []string
	natstest.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
		for {
			select {
			case line := <-lines:
				printed = append(printed, line)
				continue
			default:
			}
			break
		}
		if body := live(); !strings.Contains(strings.Join(printed, "\n"), "full time") || strings.Contains(body, "Eintracht Braunschweig") {
			return fmt.Errorf("after the final whistle the match should leave the live list; printed %q", printed)
		}
		return nil
	})
}
