package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/httpapi"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/settings"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
)

// config is the replica's configuration: flags, each with an FD_*
// environment fallback, parsed into typed values.
type config struct {
	listen       string
	natsURL      string
	embeddedNATS string
	publicURL    string
	cacheMB      int
	bodyDir      string
	proxyHeader  string
	proxies      []netip.Prefix
	seasonSwitch string
	now          string
	drain        time.Duration
	natsCA       string
	natsCert     string
	natsKey      string
	version      bool
	anonPerDay   int
	adminListen  string
	accessLog    bool
	keepAlive    time.Duration
	streamsIP    int
	streamsCli   int
	history      int
	webhookAllow *netguard.Allow
	// webhookWorkers deliveries at once, each answered within
	// webhookTimeout.
	webhookWorkers int
	webhookTimeout time.Duration
	// tokenLookup bounds the wait for the lookup of a token the replica
	// has not applied.
	tokenLookup time.Duration
	// tokenLookups is each client address's budget of such lookups a
	// minute.
	tokenLookups int
	connsPerIP   int
	// stallAfter bounds how long the stream consumer may go without
	// delivering what the stream holds before it is replaced.
	stallAfter time.Duration

	switchMonth time.Month
	switchDay   int
	fixedNow    time.Time
	level       slog.Level
}

// settings are the replica's flags, grouped as docs/api.md's flag table.
// The libraries' defaults and bounds are theirs, referred to here.
func (c *config) settings() settings.Table {
	season := fmt.Sprintf("%02d-%02d", int(readmodel.DefaultSwitchMonth), readmodel.DefaultSwitchDay)
	return slices.Concat(settings.Table{
		{Group: "HTTP", Name: "listen", Env: "FD_LISTEN", Arg: "ADDR", Usage: "HTTP address (port 0: a free one, logged)", Value: settings.Addr(&c.listen, ":8080", false)},
		{Group: "HTTP", Name: "admin-listen", Env: "FD_ADMIN_LISTEN", Arg: "ADDR", Usage: "admin listener (/metrics, /healthz, /readyz); empty for none; each replica on a host needs its own", Value: settings.Addr(&c.adminListen, "127.0.0.1:9090", true)},
		{Group: "HTTP", Name: "public-url", Env: "FD_PUBLIC_URL", Arg: "URL", Usage: "base of absolute links, such as https://api.example.org (default: the request's scheme and Host)", Value: settings.Text(&c.publicURL, "")},
		{Group: "HTTP", Name: "trusted-proxies", Env: "FD_TRUSTED_PROXIES", Arg: "CIDRS", Usage: "addresses of the proxies in front, comma-separated CIDRs or IPs: only from them are the client-address header and X-Forwarded-Host/-Proto believed", Value: settings.Parsed(proxiesValue{&c.proxies}, "")},
		{Group: "HTTP", Name: "trusted-proxy-header", Env: "FD_TRUSTED_PROXY_HEADER", Arg: "NAME", Usage: "header in which trusted proxies pass the client's address", Value: settings.Text(&c.proxyHeader, httpapi.DefaultTrustedProxyHeader)},
		{Group: "HTTP", Name: "access-log", Env: "FD_ACCESS_LOG", Usage: "log every request (method, path, status, time, client, caller; never the query)", Value: settings.Bool(&c.accessLog)},
		{Group: "HTTP", Name: "conns-per-ip", Env: "FD_CONNS_PER_IP", Arg: "N", Usage: "connections one address may hold open on this replica (a trusted proxy's are not counted)", Value: settings.Int(&c.connsPerIP, httpapi.DefaultConnsPerIP, 1, 0)},
		{Group: "HTTP", Name: "cache-mb", Env: "FD_CACHE_MB", Arg: "MIB", Usage: "budget of the rendered-response cache", Value: settings.Int(&c.cacheMB, httpapi.DefaultCacheBytes>>20, 1, 0)},
		{Group: "HTTP", Name: "body-dir", Env: "FD_BODY_DIR", Arg: "DIR", Usage: "directory of the files the largest cached bodies are sent from, with sendfile (unnamed: nothing to clean up; within the cache's budget); default footballd/bodies in the system's cache directory ($XDG_CACHE_HOME, or ~/.cache); \"memory\", or a directory that refuses them (logged), keeps them in memory", Value: settings.Text(&c.bodyDir, "")},
	}, settings.NATS("NATS", "api", &c.natsURL, &c.natsCA, &c.natsCert, &c.natsKey), settings.Table{
		{Group: "NATS", Name: "stall-after", Env: "FD_STALL_AFTER", Arg: "DURATION", Usage: "how long the stream consumer may hold back a message the stream has before it is replaced; /readyz is 503 until the replica has caught up, which is never more than this plus " + settings.Short(events.StallBound(0)) + " behind the stream while it has a leader", Value: settings.Duration(&c.stallAfter, events.DefaultStallAfter, events.MinStallAfter, 0)},
		{Group: "NATS", Name: "embedded-nats", Env: "FD_EMBEDDED_NATS", Arg: "DIR", Usage: "single-machine mode: run NATS in-process on the --nats address, storage in DIR", Value: settings.Text(&c.embeddedNATS, "")},
		{Group: "Data", Name: "now", Env: "FD_NOW", Arg: "TIME", Usage: "start the data's clock at this RFC 3339 instant (demos, tests); rate limits keep the wall clock", Value: settings.Parsed(nowValue{&c.now, &c.fixedNow}, "")},
		{Group: "Data", Name: "season-switch", Env: "FD_SEASON_SWITCH", Arg: "MM-DD", Usage: "date a new season becomes current", Value: settings.Parsed(switchValue{&c.seasonSwitch, &c.switchMonth, &c.switchDay}, season)},
		{Group: "Limits", Name: "anonymous-per-day", Env: "FD_ANONYMOUS_PER_DAY", Arg: "N", Usage: "requests a day an anonymous client address may make", Value: settings.Int(&c.anonPerDay, httpapi.DefaultAnonymousPerDay, 1, 0)},
		{Group: "Limits", Name: "token-lookup-timeout", Env: "FD_TOKEN_LOOKUP_TIMEOUT", Arg: "DURATION", Usage: "how long a request with a token this replica has not applied waits for the stream to say whose it is, before it is refused", Value: settings.Duration(&c.tokenLookup, httpapi.DefaultTokenLookupTimeout, time.Nanosecond, httpapi.MaxTokenLookupTimeout)},
		{Group: "Limits", Name: "token-lookups-per-minute", Env: "FD_TOKEN_LOOKUPS_PER_MINUTE", Arg: "N", Usage: "lookups of tokens this replica has not applied that one client address may cause a minute; beyond them such a token gets 429", Value: settings.Int(&c.tokenLookups, httpapi.DefaultTokenLookupsPerMinute, 1, 0)},
		{Group: "Live events", Name: "sse-keepalive", Env: "FD_SSE_KEEPALIVE", Arg: "DURATION", Usage: "comment line on idle event streams (/v1/events), so that proxies keep them open", Value: settings.Duration(&c.keepAlive, httpapi.DefaultKeepAlive, time.Nanosecond, httpapi.MaxKeepAlive)},
		{Group: "Live events", Name: "streams-per-ip", Env: "FD_STREAMS_PER_IP", Arg: "N", Usage: "event streams an anonymous client address may hold open on one replica", Value: settings.Int(&c.streamsIP, httpapi.DefaultStreamsPerIP, 1, 0)},
		{Group: "Live events", Name: "streams-per-client", Env: "FD_STREAMS_PER_CLIENT", Arg: "N", Usage: "event streams a registered client may hold open on one replica", Value: settings.Int(&c.streamsCli, httpapi.DefaultStreamsPerClient, 1, 0)},
		{Group: "Live events", Name: "event-history", Env: "FD_EVENT_HISTORY", Arg: "N", Usage: "recent events a replica keeps for event streams resuming with Last-Event-ID", Value: settings.Int(&c.history, push.DefaultHistory, 1, 0)},
		{Group: "Webhooks", Name: "webhook-allow", Env: "FD_WEBHOOK_ALLOW", Arg: "LIST", Usage: "where webhooks may point besides public addresses: CIDRs (the only way to loopback or private addresses, such as 127.0.0.1/32) and host patterns (hooks.example.org, *.example.org; when given, public hosts must match one)", Value: settings.Allow(&c.webhookAllow)},
		{Group: "Webhooks", Name: "webhook-workers", Env: "FD_WEBHOOK_WORKERS", Arg: "N", Usage: "webhook deliveries this replica makes at once (a quarter of them at most for one webhook)", Value: settings.Int(&c.webhookWorkers, webhook.DefaultWorkers, 1, 0)},
		{Group: "Webhooks", Name: "webhook-timeout", Env: "FD_WEBHOOK_TIMEOUT", Arg: "DURATION", Usage: "time a receiver has to answer 2xx before the delivery is retried", Value: settings.Duration(&c.webhookTimeout, webhook.DefaultTimeout, time.Second, time.Minute)},
		{Group: "Operations", Name: "log-level", Env: "FD_LOG_LEVEL", Arg: "LEVEL", Usage: "debug, info, warn or error; JSON logs on stderr", Value: settings.Level(&c.level, slog.LevelInfo)},
		{Group: "Operations", Name: "drain", Env: "FD_DRAIN", Arg: "DURATION", Usage: "on SIGTERM, how long to report not ready before closing, so that load balancers stop routing here", Value: settings.Duration(&c.drain, 5*time.Second, 0, 0)},
		{Group: "Operations", Name: "version", Usage: "print the version and exit", Value: settings.Bool(&c.version)},
	})
}

// example is the start of a production replica, shown by --help.
const example = "FD_NATS_URL=nats://api:PASSWORD@fd-nats-1:4222,nats://api:PASSWORD@fd-nats-2:4222 \\\n" +
	"    api --nats-ca /etc/footballd/nats-ca.pem --listen 127.0.0.1:8081 --admin-listen 127.0.0.1:18081 \\\n" +
	"    --public-url https://api.example.org --trusted-proxies 127.0.0.1/32"

// parseConfig reads the environment, then the flags. --help prints the
// table to stdout and returns flag.ErrHelp; any other error is one line.
func parseConfig(args []string, getenv func(string) string, stdout io.Writer) (*config, error) {
	c := &config{}
	table := c.settings()
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	if err := table.Load(fs, getenv); err != nil {
		return nil, err
	}
	if err := settings.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, table)
			return nil, err
		}
		return nil, fmt.Errorf("%w (see api --help)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see api --help)", fs.Arg(0))
	}
	if (c.natsCert == "") != (c.natsKey == "") {
		return nil, fmt.Errorf("--nats-cert %q and --nats-key %q: give both or neither", c.natsCert, c.natsKey)
	}
	if c.bodyDir == "" {
		c.bodyDir = defaultBodyDir(getenv)
	}
	return c, nil
}

// defaultBodyDir is footballd/bodies in the system's cache directory, as
// os.UserCacheDir finds it on Linux but from the environment run is given:
// $XDG_CACHE_HOME, or ~/.cache; "" when there is neither.
func defaultBodyDir(getenv func(string) string) string {
	base := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(base) {
		base = ""
		if home := getenv("HOME"); home != "" {
			base = filepath.Join(home, ".cache")
		}
	}
	if base == "" {
		return ""
	}
	return filepath.Join(base, "footballd", "bodies")
}

// usage prints the flags grouped, with their environment variables and
// defaults, and an example.
func usage(w io.Writer, table settings.Table) {
	fmt.Fprintln(w, "usage: api [flags]\n\nOne API replica: replays the NATS stream into memory and serves the v1 and v4 APIs.")
	fmt.Fprintln(w, "Every flag may be given in its environment variable instead; a flag wins over it.")
	_ = table.Help(w)
	fmt.Fprintf(w, "\nexample:\n  %s\n", example)
}

// proxiesValue is a list of CIDRs or addresses.
type proxiesValue struct{ p *[]netip.Prefix }

func (v proxiesValue) String() string {
	if v.p == nil {
		return ""
	}
	return fmt.Sprint(*v.p)
}

func (v proxiesValue) Set(s string) error {
	var out []netip.Prefix
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or an address", p)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		out = append(out, prefix.Masked())
	}
	*v.p = out
	return nil
}

// nowValue is an RFC 3339 instant, or empty for the wall clock.
type nowValue struct {
	p *string
	t *time.Time
}

func (v nowValue) String() string { return deref(v.p) }

func (v nowValue) Set(s string) error {
	var t time.Time
	if s != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, s); err != nil {
			return errors.New("must be an RFC 3339 time such as 2026-03-13T12:00:00Z")
		}
	}
	*v.p, *v.t = s, t
	return nil
}

// switchValue is a month and day, MM-DD.
type switchValue struct {
	p     *string
	month *time.Month
	day   *int
}

func (v switchValue) String() string { return deref(v.p) }

func (v switchValue) Set(s string) error {
	sw, err := time.Parse("01-02", s)
	if err != nil {
		return errors.New("must be MM-DD, such as 06-01")
	}
	*v.p, *v.month, *v.day = s, sw.Month(), sw.Day()
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
