// Command livedemo is `make live-demo`: a recorded 2. Bundesliga matchday
// (OpenLigaDB, ../shared/spec/openligadb) played live through a local
// fake OpenLigaDB, followed by `ingest follow` into an API replica in
// front of a NATS server of its own (in-process, on a port it picks), so
// that a newcomer sees scores move on /v4/matches?status=LIVE, the docs
// page and the event stream without an account anywhere. It runs bin/api
// and bin/ingest (make builds them) and stops them at Ctrl-C.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/footdata/footballd/internal/livefake"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
)

// The match played live: Braunschweig v Elversberg, matchday 27 of the
// recorded snapshot, in which two other matches are in play already.
const (
	recording = "getmatchdata-bl2-2023.live-2024-03-30T1332.json"
	liveMatch = 67178
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "live-demo:", err)
		os.Exit(1)
	}
}

// config is the demo's flags.
type config struct {
	listen, dir, bin, spec string
	step                   time.Duration
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("live-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8081", "`address` of the API replica (port 0: one it picks, printed)")
	fs.StringVar(&c.dir, "dir", "", "`folder` of the NATS data (default: a new temporary one, removed at the end)")
	fs.StringVar(&c.bin, "bin", "bin", "`folder` of the api and ingest binaries")
	fs.StringVar(&c.spec, "spec", "../shared/spec/openligadb", "`folder` of the OpenLigaDB recordings")
	fs.DurationVar(&c.step, "step", 15*time.Second, "time between two moments of the match")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.step < time.Second {
		return c, fmt.Errorf("--step %s: must be at least 1s", c.step)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	season, err := os.ReadFile(filepath.Join(c.spec, recording))
	if err != nil {
		return fmt.Errorf("the recorded season: %w (the shared specs beside the repository, or --spec)", err)
	}
	fake, err := livefake.NewOpenLigaDB(season, 1<<30, time.Minute)
	if err != nil {
		return err
	}
	defer fake.Close()
	// The match kicks off one step from now.
	if _, err := fake.Edit(liveMatch, livefake.Unplayed(time.Now().Add(c.step))); err != nil {
		return err
	}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "footballd-live-demo-"); err != nil {
			return err
		}
		defer os.RemoveAll(c.dir)
	}
	nats, err := startNATS(ctx, c.dir)
	if err != nil {
		return err
	}
	defer nats.Stop()
	api, base, err := startAPI(ctx, stderr, filepath.Join(c.bin, "api"), "--listen", c.listen, "--admin-listen", "", "--nats", nats.URL(),
		"--drain", "0s", "--log-level", "info")
	if err != nil {
		return err
	}
	defer api.stop()
	if err := ready(ctx, base+"/readyz", api); err != nil {
		return err
	}
	ingest := filepath.Join(c.bin, "ingest")
	// The fake allows any number of calls: a minute's 60 paces the match
	// at a second, where OpenLigaDB's 5,000 a day would at 17.
	add := exec.CommandContext(ctx, ingest, "--nats", nats.URL(), "--editor", "live-demo", "feed", "add", "bl2-live", "--format", "openligadb",
		"--url", fake.URL, "--source-league", "bl2", "--season", "2023", "--every", "1h", "--create-teams", "--upstream-per-minute", "60")
	if out, err := add.CombinedOutput(); err != nil {
		return fmt.Errorf("ingest feed add: %v: %s", err, out)
	}
	follower, err := start(io.Discard, ingest, "--nats", nats.URL(), "--editor", "live-demo", "follow", "--admin-listen", "", "--lease", "2s",
		"--feed-allow", "127.0.0.1/32") // the fake is on loopback
	if err != nil {
		return err
	}
	defer follower.stop()
	fmt.Fprintf(stdout, `
A 2. Bundesliga matchday is being played live through a local OpenLigaDB (recorded 2024-03-30):
Braunschweig v Elversberg kicks off in %s, then moves every %s. Watch it:
  curl '%s/v4/matches?status=LIVE'
  curl -N -H 'Accept: text/event-stream' '%s/v1/events?league=BL2'
  %s/docs
Ctrl-C stops it.

`, c.step, c.step, base, base, base)
	return play(ctx, c, fake, stdout)
}

// play moves the match a step at a time, then waits for Ctrl-C.
func play(ctx context.Context, c config, fake *livefake.OpenLigaDB, stdout io.Writer) error {
	for _, step := range livefake.Script() {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(c.step):
		}
		if _, err := fake.Edit(liveMatch, step.Change); err != nil {
			return err
		}
		half := ""
		if step.Half != "" {
			half = " (half time " + step.Half + ")"
		}
		fmt.Fprintf(stdout, "%s  %-20s %s %s%s\n", time.Now().Format("15:04:05"), step.What, step.Status, step.Score, half)
	}
	<-ctx.Done()
	return nil
}

// startNATS starts the NATS server the demo's replica and follower share,
// on a loopback port it picks, with the stream and buckets set up as
// `ingest stream init` does.
func startNATS(ctx context.Context, dir string) (*natsembed.Server, error) {
	ns, err := natsembed.Start(natsembed.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	nc, err := events.Dial{URL: ns.URL(), Name: "live-demo"}.Conn()
	if err != nil {
		ns.Stop()
		return nil, err
	}
	defer nc.Close()
	if _, err := provision.Run(ctx, nc, events.StreamConfig{}); err != nil {
		ns.Stop()
		return nil, err
	}
	return ns, nil
}

// process is a binary the demo runs.
type process struct {
	cmd  *exec.Cmd
	done chan error
}

func start(stderr io.Writer, bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w (make live-demo builds it)", bin, err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// startAPI runs the replica and reads the address it listens on from its
// log (it binds the port it was given, 0 for one of its choice); its
// warnings and errors go on to stderr.
func startAPI(ctx context.Context, stderr io.Writer, bin string, args ...string) (*process, string, error) {
	r, w := io.Pipe()
	p, err := start(w, bin, args...)
	if err != nil {
		return nil, "", err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var line struct{ Level, Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			switch {
			case line.Msg == "listening":
				addr <- line.Addr
			case line.Level == "WARN" || line.Level == "ERROR":
				fmt.Fprintln(stderr, sc.Text())
			}
		}
	}()
	select {
	case a := <-addr:
		return p, "http://" + a, nil
	case err := <-p.done:
		return nil, "", fmt.Errorf("%s stopped: %v", bin, err)
	case <-ctx.Done():
		p.stop()
		return nil, "", errors.New("stopped")
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, "", fmt.Errorf("%s logged no address within 30s", bin)
	}
}

// stop asks the process to stop, as Ctrl-C would, and waits for it.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// ready waits for the replica's /readyz, or its end.
func ready(ctx context.Context, url string, api *process) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-api.done:
			api.done <- err
			return fmt.Errorf("the api stopped before it was ready: %v", err)
		case <-ctx.Done():
			return errors.New("stopped")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("the api was not ready within 60s")
}
