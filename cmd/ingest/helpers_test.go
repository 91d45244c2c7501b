package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
)

// cli runs the ingest command against srv and returns its exit code, stdout
// and stderr.
type cli struct {
	t   testing.TB
	srv *natsembed.Server
	// stdin is what the next commands read from standard input.
	stdin string
}

func newCLI(t testing.TB) *cli {
	t.Helper()
	return &cli{t: t, srv: natstest.MustStart(t)}
}

func (c *cli) run(args ...string) (int, string, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	env := map[string]string{"FD_NATS_URL": c.srv.URL(), "FD_EDITOR": "tester"}
	code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(c.stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// ok runs a command that must succeed and returns its output.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	code, out, errOut := c.run(args...)
	if code != 0 {
		c.t.Fatalf("ingest %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}
