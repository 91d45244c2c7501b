package main

import (
	"flag"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/settings"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
)

// TestFlagsComeFromTheTable: the global flags and follow's are registered
// from their tables, listed in --help with their variables and defaults,
// and refused in the table's one line, with where to read the help.
func TestFlagsComeFromTheTable(t *testing.T) {
	var g globals
	_, help, _ := offline("--help")
	for _, s := range g.settings(noEnv) {
		def, env := s.Value.Default(), s.Env
		if def == "" || def == "false" {
			def = "-"
		}
		if env == "" {
			env = "-"
		}
		line := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(s.Name) + `\b.*$`).FindString(help)
		if fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), strings.TrimSpace("--"+s.Name+" "+s.Arg))); len(fields) < 2 || fields[0] != env || fields[1] != def {
			t.Errorf("ingest --help line of --%s is %q, want %s and default %s", s.Name, line, env, def)
		}
	}
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	followCommand().flags(fs)
	_, followHelp, _ := offline("follow", "--help")
	fs.VisitAll(func(f *flag.Flag) {
		s, ok := settings.Lookup(f)
		if !ok {
			t.Errorf("follow --%s is not from the table", f.Name)
			return
		}
		if want := "  --" + s.Name + " " + s.Arg + "\n      " + s.Usage; !strings.Contains(followHelp, want) {
			t.Errorf("follow --help lacks %q", want)
		}
	})

	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--bogus"}, nil, `ingest: unknown flag --bogus (see ingest --help)`},
		{[]string{"--patience", "soon", "team", "list"}, nil, `ingest: --patience "soon": must be a duration more than 0, such as 1m (see ingest --help)`},
		{[]string{"team", "list"}, map[string]string{"FD_PATIENCE": "0s"}, `ingest: --patience "0s" (from FD_PATIENCE): must be a duration more than 0, such as 1m (see ingest --help)`},
		{[]string{"show", "team", "57", "--nats", "http://ingest:s3cret@x"}, nil, `ingest: show: --nats "http://ingest:xxxxx@x": must be a URL such as nats://127.0.0.1:4222, or several separated by commas (see ingest help show)`},
		{[]string{"team", "put", "--nats"}, nil, `ingest: team put: flag needs an argument: --nats (see ingest help team put)`},
		{[]string{"follow", "--bogus"}, nil, `ingest: follow: unknown flag --bogus (see ingest help follow)`},
		{[]string{"follow", "--lease", "x"}, nil, `ingest: follow: --lease "x": must be a duration of at least 300ms, such as 6s (see ingest help follow)`},
		{[]string{"follow", "--concurrency", "0"}, nil, `ingest: follow: --concurrency "0": must be a whole number, at least 1 (see ingest help follow)`},
		{[]string{"follow", "--max-shrink", "0"}, nil, `ingest: follow: --max-shrink "0": must be a number more than 0 and at most 1 (see ingest help follow)`},
		{[]string{"follow", "--log-level", "loud"}, nil, `ingest: follow: --log-level "loud": must be debug, info, warn or error (see ingest help follow)`},
		{[]string{"follow", "--admin-listen", "x"}, nil, `ingest: follow: --admin-listen "x": must be host:port or :port, or empty for none (see ingest help follow)`},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		env := map[string]string{"FD_NATS_URL": "nats://127.0.0.1:1"}
		for k, v := range tt.env {
			env[k] = v
		}
		code := run(t.Context(), tt.args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
		if code != exitInvalid || errOut.String() != tt.want+"\n" || out.Len() > 0 {
			t.Errorf("ingest %s: exit %d, stdout %q, stderr %q; want exit %d and %s", strings.Join(tt.args, " "), code, out.String(), errOut.String(), exitInvalid, tt.want)
		}
	}
}

// TestDefaultsDeclaredOnce: the defaults and bounds ingest shares with
// the libraries are the libraries'.
func TestDefaultsDeclaredOnce(t *testing.T) {
	var g globals
	gs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	g.settings(noEnv).Register(gs)
	var cfg follow.Config
	var admin string
	var level slog.Level
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	table := followSettings(&cfg, &admin, &level)
	table.Register(fs)
	tests := []struct {
		flag      string
		got, want any
	}{
		{"nats", g.nats, nats.DefaultURL},
		{"patience", g.patience, events.DefaultPatience},
		{"lease", cfg.LeaseTTL, follow.DefaultLeaseTTL},
		{"concurrency", cfg.Concurrency, follow.DefaultConcurrency},
		{"max-shrink", cfg.MaxShrink, follow.DefaultMaxShrink},
		{"connect-timeout", cfg.ConnectTimeout, follow.DefaultConnectTimeout},
		{"header-timeout", cfg.HeaderTimeout, follow.DefaultHeaderTimeout},
		{"fetch-timeout", cfg.FetchTimeout, follow.DefaultFetchTimeout},
		{"max-bytes", cfg.MaxBody, int64(follow.DefaultMaxBody)},
		{"max-backoff", cfg.MaxBackoff, follow.DefaultMaxBackoff},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("--%s defaults to %v, the library to %v", tt.flag, tt.got, tt.want)
		}
	}
	// The bound the follower checks is the flag's.
	for _, tt := range []struct {
		lease string
		ok    bool
	}{{follow.MinLeaseTTL.String(), true}, {(follow.MinLeaseTTL - time.Millisecond).String(), false}} {
		if err := settings.Parse(fs, []string{"--lease", tt.lease}); (err == nil) != tt.ok {
			t.Errorf("--lease %s: error %v, want ok %v", tt.lease, err, tt.ok)
		}
	}
}
