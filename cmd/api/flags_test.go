package main

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/httpapi"
	"github.com/footdata/footballd/internal/settings"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/nats-io/nats.go"
)

// TestBadFlagIsOneLine (issue 37): a bad flag or value is one line naming
// the flag and the value, with where to read the help; the usage is not
// printed unless asked for.
func TestBadFlagIsOneLine(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--bogus"}, nil, `unknown flag --bogus (see api --help)`},
		{[]string{"--cache-mb", "x"}, nil, `--cache-mb "x": must be a whole number, at least 1 (see api --help)`},
		{[]string{"--stall-after", "1s"}, nil, `--stall-after "1s": must be a duration of at least 2s, such as 5s (see api --help)`},
		{[]string{"--webhook-timeout", "2m"}, nil, `--webhook-timeout "2m": must be a duration from 1s to 1m, such as 10s (see api --help)`},
		{[]string{"--nats", "http://api:s3cret@x:4222"}, nil, `--nats "http://api:xxxxx@x:4222": must be a URL such as nats://127.0.0.1:4222, or several separated by commas (see api --help)`},
		{[]string{"--listen"}, nil, `flag needs an argument: --listen (see api --help)`},
		{[]string{"serve"}, nil, `unexpected argument "serve" (flags only; see api --help)`},
		{nil, map[string]string{"FD_EVENT_HISTORY": "0"}, `--event-history "0" (from FD_EVENT_HISTORY): must be a whole number, at least 1`},
	}
	for _, tt := range tests {
		var stdout, stderr strings.Builder
		err := run(context.Background(), tt.args, func(k string) string { return tt.env[k] }, &stdout, &stderr)
		if err == nil || err.Error() != tt.want {
			t.Errorf("api %v: error %v, want %s", tt.args, err, tt.want)
		}
		if stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("api %v: printed %d lines besides the error:\n%s%s", tt.args, strings.Count(stdout.String()+stderr.String(), "\n"), stdout.String(), stderr.String())
		}
	}
}

// TestHelpIsTheTable: --help has one line for every setting of the table,
// with its environment variable and default, and every setting's value
// is refused in the table's wording.
func TestHelpIsTheTable(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	table := (&config{}).settings()
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	table.Register(fs)
	for _, s := range table {
		def, env := s.Value.Default(), s.Env
		if def == "" || def == "false" {
			def = "-"
		}
		if env == "" {
			env = "-"
		}
		line := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(s.Name) + `\b.*$`).FindString(out.String())
		if fields := strings.Fields(strings.TrimPrefix(line, "  --"+s.Name+" "+s.Arg)); len(fields) < 2 || fields[0] != env || fields[1] != def {
			t.Errorf("--help line of --%s is %q, want %s and default %s", s.Name, line, env, def)
		}
		if got, ok := settings.Lookup(fs.Lookup(s.Name)); !ok || got.Usage != s.Usage {
			t.Errorf("--%s is not registered from the table", s.Name)
		}
	}
}

// TestDefaultsDeclaredOnce: each default the replica shares with a library
// is the library's, so that the flag and the library's zero value mean
// the same. A literal in the table that drifts from the library fails
// here.
func TestDefaultsDeclaredOnce(t *testing.T) {
	c, err := parseConfig(nil, func(string) string { return "" }, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flag      string
		got, want any
	}{
		{"cache-mb", int64(c.cacheMB) << 20, int64(httpapi.DefaultCacheBytes)},
		{"trusted-proxy-header", c.proxyHeader, httpapi.DefaultTrustedProxyHeader},
		{"conns-per-ip", c.connsPerIP, httpapi.DefaultConnsPerIP},
		{"anonymous-per-day", c.anonPerDay, httpapi.DefaultAnonymousPerDay},
		{"token-lookup-timeout", c.tokenLookup, httpapi.DefaultTokenLookupTimeout},
		{"token-lookups-per-minute", c.tokenLookups, httpapi.DefaultTokenLookupsPerMinute},
		{"sse-keepalive", c.keepAlive, httpapi.DefaultKeepAlive},
		{"streams-per-ip", c.streamsIP, httpapi.DefaultStreamsPerIP},
		{"streams-per-client", c.streamsCli, httpapi.DefaultStreamsPerClient},
		{"event-history", c.history, push.DefaultHistory},
		{"webhook-workers", c.webhookWorkers, webhook.DefaultWorkers},
		{"webhook-timeout", c.webhookTimeout, webhook.DefaultTimeout},
		{"stall-after", c.stallAfter, events.DefaultStallAfter},
		{"nats", c.natsURL, nats.DefaultURL},
		{"season-switch", fmt.Sprint(c.switchMonth, c.switchDay), fmt.Sprint(readmodel.DefaultSwitchMonth, readmodel.DefaultSwitchDay)},
	}
	for _, tt := range tests {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("--%s defaults to %v, the library to %v", tt.flag, tt.got, tt.want)
		}
	}
	// The bounds the library checks are the flags'.
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--sse-keepalive", httpapi.MaxKeepAlive.String()}, true},
		{[]string{"--sse-keepalive", (httpapi.MaxKeepAlive + time.Second).String()}, false},
		{[]string{"--token-lookup-timeout", httpapi.MaxTokenLookupTimeout.String()}, true},
		{[]string{"--token-lookup-timeout", (httpapi.MaxTokenLookupTimeout + time.Millisecond).String()}, false},
		{[]string{"--stall-after", events.MinStallAfter.String()}, true},
		{[]string{"--stall-after", (events.MinStallAfter - time.Millisecond).String()}, false},
	} {
		if _, err := parseConfig(tt.args, func(string) string { return "" }, &strings.Builder{}); (err == nil) != tt.ok {
			t.Errorf("%v: error %v, want ok %v", tt.args, err, tt.ok)
		}
	}
}
