package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/pkg/events"
)

// config is the replica's configuration: flags, each with an FD_*
// environment fallback, parsed into typed values.
type config struct {
	listen       string
	natsURL      string
	embeddedNATS string
	publicURL    string
	cacheMB      int
	proxyHeader  string
	proxies      []netip.Prefix
	seasonSwitch string
	now          string
	logLevel     string
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

// option is one flag: its group in --help, its environment variable, the
// name of its value and its typed value (which holds the default).
type option struct {
	group, name, env, arg, usage string
	value                        flag.Value
}

// options are the replica's flags, grouped as docs/api.md's flag table.
func (c *config) options() []option {
	return []option{
		{"HTTP", "listen", "FD_LISTEN", "ADDR", "HTTP address (port 0: a free one, logged)", addrValue{&c.listen, false}},
		{"HTTP", "admin-listen", "FD_ADMIN_LISTEN", "ADDR", "admin listener (/metrics, /healthz, /readyz); empty for none; each replica on a host needs its own", addrValue{&c.adminListen, true}},
		{"HTTP", "public-url", "FD_PUBLIC_URL", "URL", "base of absolute links, such as https://api.example.org (default: the request's scheme and Host)", textValue{&c.publicURL}},
		{"HTTP", "trusted-proxies", "FD_TRUSTED_PROXIES", "CIDRS", "addresses of the proxies in front, comma-separated CIDRs or IPs: only from them are the client-address header and X-Forwarded-Host/-Proto believed", proxiesValue{&c.proxies}},
		{"HTTP", "trusted-proxy-header", "FD_TRUSTED_PROXY_HEADER", "NAME", "header in which trusted proxies pass the client's address", textValue{&c.proxyHeader}},
		{"HTTP", "access-log", "FD_ACCESS_LOG", "", "log every request (method, path, status, time, client, caller; never the query)", boolValue{&c.accessLog}},
		{"HTTP", "conns-per-ip", "FD_CONNS_PER_IP", "N", "connections one address may hold open on this replica (a trusted proxy's are not counted)", countValue{&c.connsPerIP}},
		{"HTTP", "cache-mb", "FD_CACHE_MB", "MIB", "budget of the rendered-response cache", countValue{&c.cacheMB}},
		{"NATS", "nats", "FD_NATS_URL", "URLS", "NATS servers, comma-separated; a user's password as nats://api:PASSWORD@host:4222 (masked in logs)", natsValue{&c.natsURL}},
		{"NATS", "nats-ca", "FD_NATS_CA", "FILE", "PEM file of the CA trusted for NATS, and for NATS only (default: the system's roots)", textValue{&c.natsCA}},
		{"NATS", "nats-cert", "FD_NATS_CERT", "FILE", "PEM client certificate for NATS, with --nats-key", textValue{&c.natsCert}},
		{"NATS", "nats-key", "FD_NATS_KEY", "FILE", "PEM key of --nats-cert", textValue{&c.natsKey}},
		{"NATS", "stall-after", "FD_STALL_AFTER", "DURATION", "how long the stream consumer may hold back a message the stream has before it is replaced; /readyz is 503 until the replica has caught up", durationValue{&c.stallAfter, events.MinStallAfter, 0, "of at least " + events.MinStallAfter.String() + ", such as 5s"}},
		{"NATS", "embedded-nats", "FD_EMBEDDED_NATS", "DIR", "single-machine mode: run NATS in-process on the --nats address, storage in DIR", textValue{&c.embeddedNATS}},
		{"Data", "now", "FD_NOW", "TIME", "start the data's clock at this RFC 3339 instant (demos, tests); rate limits keep the wall clock", nowValue{&c.now, &c.fixedNow}},
		{"Data", "season-switch", "FD_SEASON_SWITCH", "MM-DD", "date a new season becomes current", switchValue{&c.seasonSwitch, &c.switchMonth, &c.switchDay}},
		{"Limits", "anonymous-per-day", "FD_ANONYMOUS_PER_DAY", "N", "requests a day an anonymous client address may make", countValue{&c.anonPerDay}},
		{"Limits", "token-lookup-timeout", "FD_TOKEN_LOOKUP_TIMEOUT", "DURATION", "how long a request with a token this replica has not applied waits for the stream to say whose it is, before it is refused", durationValue{&c.tokenLookup, time.Nanosecond, 10 * time.Second, "more than 0 and at most 10s, such as 1s"}},
		{"Limits", "token-lookups-per-minute", "FD_TOKEN_LOOKUPS_PER_MINUTE", "N", "lookups of tokens this replica has not applied that one client address may cause a minute; beyond them such a token gets 429", countValue{&c.tokenLookups}},
		{"Live events", "sse-keepalive", "FD_SSE_KEEPALIVE", "DURATION", "comment line on idle event streams (/v1/events), so that proxies keep them open", durationValue{&c.keepAlive, time.Nanosecond, time.Minute, "more than 0 and at most 1m, such as 15s"}},
		{"Live events", "streams-per-ip", "FD_STREAMS_PER_IP", "N", "event streams an anonymous client address may hold open on one replica", countValue{&c.streamsIP}},
		{"Live events", "streams-per-client", "FD_STREAMS_PER_CLIENT", "N", "event streams a registered client may hold open on one replica", countValue{&c.streamsCli}},
		{"Live events", "event-history", "FD_EVENT_HISTORY", "N", "recent events a replica keeps for event streams resuming with Last-Event-ID", countValue{&c.history}},
		{"Webhooks", "webhook-allow", "FD_WEBHOOK_ALLOW", "LIST", "where webhooks may point besides public addresses: CIDRs (the only way to loopback or private addresses, such as 127.0.0.1/32) and host patterns (hooks.example.org, *.example.org; when given, public hosts must match one)", allowValue{&c.webhookAllow}},
		{"Webhooks", "webhook-workers", "FD_WEBHOOK_WORKERS", "N", "webhook deliveries this replica makes at once (a quarter of them at most for one webhook)", countValue{&c.webhookWorkers}},
		{"Webhooks", "webhook-timeout", "FD_WEBHOOK_TIMEOUT", "DURATION", "time a receiver has to answer 2xx before the delivery is retried", durationValue{&c.webhookTimeout, time.Second, time.Minute, "from 1s to 1m, such as 10s"}},
		{"Operations", "log-level", "FD_LOG_LEVEL", "LEVEL", "debug, info, warn or error; JSON logs on stderr", levelValue{&c.logLevel, &c.level}},
		{"Operations", "drain", "FD_DRAIN", "DURATION", "on SIGTERM, how long to report not ready before closing, so that load balancers stop routing here", durationValue{&c.drain, 0, 0, "such as 5s"}},
		{"Operations", "version", "", "", "print the version and exit", boolValue{&c.version}},
	}
}

// defaults are the values before the environment and the flags.
var defaults = map[string]string{
	"listen": ":8080", "admin-listen": "127.0.0.1:9090", "trusted-proxy-header": "X-Forwarded-For", "access-log": "false",
	"cache-mb": "256", "nats": "nats://127.0.0.1:4222", "season-switch": "06-01", "anonymous-per-day": "100",
	"sse-keepalive": "15s", "streams-per-ip": "1", "streams-per-client": "5", "event-history": "10000",
	"webhook-workers": "16", "webhook-timeout": "10s", "log-level": "info", "drain": "5s", "version": "false",
	"token-lookup-timeout": "1s", "token-lookups-per-minute": "30", "conns-per-ip": "256",
	"stall-after": "5s",
}

// example is the start of a production replica, shown by --help.
const example = "FD_NATS_URL=nats://api:PASSWORD@fd-nats-1:4222,nats://api:PASSWORD@fd-nats-2:4222 \\\n" +
	"    api --nats-ca /etc/footballd/nats-ca.pem --listen 127.0.0.1:8081 --admin-listen 127.0.0.1:18081 \\\n" +
	"    --public-url https://api.example.org --trusted-proxies 127.0.0.1/32"

var flagError = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for flag -(\S+): (.*)$`)

func parseConfig(args []string, getenv func(string) string, stdout io.Writer) (*config, error) {
	c := &config{}
	opts := c.options()
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { usage(stdout, opts) }
	for _, o := range opts {
		if err := o.value.Set(defaults[o.name]); err != nil {
			return nil, fmt.Errorf("--%s: default %q: %w", o.name, defaults[o.name], err)
		}
		fs.Var(o.value, o.name, o.usage)
	}
	for _, o := range opts {
		if v := getenv(o.env); o.env != "" && v != "" {
			if err := o.value.Set(v); err != nil {
				return nil, fmt.Errorf("--%s %q (from %s): %w", o.name, redact(o.name, v), o.env, err)
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		if m := flagError.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("--%s %q: %s", m[2], redact(m[2], m[1]), m[3])
		}
		return nil, fmt.Errorf("%s (see --help)", strings.Replace(err.Error(), "flag provided but not defined: -", "unknown flag --", 1))
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if (c.natsCert == "") != (c.natsKey == "") {
		return nil, fmt.Errorf("--nats-cert %q and --nats-key %q: give both or neither", c.natsCert, c.natsKey)
	}
	return c, nil
}

// redact masks the password in a NATS URL.
func redact(name, v string) string {
	if name == "nats" {
		return events.Redacted(v)
	}
	return v
}

// usage prints the flags grouped, with their environment variables and
// defaults, and an example.
func usage(w io.Writer, opts []option) {
	fmt.Fprintln(w, "usage: api [flags]\n\nOne API replica: replays the NATS stream into memory and serves the v1 and v4 APIs.")
	fmt.Fprintln(w, "Every flag may be given in its environment variable instead; a flag wins over it.")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	group := ""
	for _, o := range opts {
		if o.group != group {
			group = o.group
			fmt.Fprintf(tw, "\n%s\n", group)
		}
		name := "--" + o.name
		if o.arg != "" {
			name += " " + o.arg
		}
		def := defaults[o.name]
		if def == "" || def == "false" {
			def = "-"
		}
		env := o.env
		if env == "" {
			env = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, env, def, o.usage)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nexample:\n  %s\n", example)
}

// textValue is a string flag.
type textValue struct{ p *string }

func (v textValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v textValue) Set(s string) error { *v.p = s; return nil }

// boolValue is a true/false flag given alone (--access-log) or with a value.
type boolValue struct{ p *bool }

func (v boolValue) String() string {
	if v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p)
}

func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*v.p = b
	return nil
}

func (v boolValue) IsBoolFlag() bool { return true }

// countValue is a whole number of at least 1.
type countValue struct{ p *int }

func (v countValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("must be a whole number, at least 1")
	}
	*v.p = n
	return nil
}

// durationValue is a duration from min to max (max 0: no bound).
type durationValue struct {
	p        *time.Duration
	min, max time.Duration
	want     string
}

func (v durationValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < v.min || (v.max > 0 && d > v.max) {
		return fmt.Errorf("must be a duration %s", v.want)
	}
	*v.p = d
	return nil
}

// addrValue is host:port or :port (empty allowed where optional).
type addrValue struct {
	p        *string
	optional bool
}

func (v addrValue) String() string { return textValue{v.p}.String() }

func (v addrValue) Set(s string) error {
	if s == "" && v.optional {
		*v.p = s
		return nil
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return errors.New("must be host:port or :port")
	}
	*v.p = s
	return nil
}

// natsValue is one or more nats:// URLs separated by commas.
type natsValue struct{ p *string }

func (v natsValue) String() string { return textValue(v).String() }

func (v natsValue) Set(s string) error {
	for _, one := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Scheme != "nats" || u.Host == "" {
			return errors.New("must be a URL such as nats://127.0.0.1:4222, or several separated by commas")
		}
	}
	*v.p = s
	return nil
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

// allowValue is where webhooks may point (netguard.ParseAllow).
type allowValue struct{ p **netguard.Allow }

func (v allowValue) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return (*v.p).String()
}

func (v allowValue) Set(s string) error {
	a, err := netguard.ParseAllow(s)
	if err != nil {
		return err
	}
	*v.p = a
	return nil
}

// nowValue is an RFC 3339 instant, or empty for the wall clock.
type nowValue struct {
	p *string
	t *time.Time
}

func (v nowValue) String() string { return textValue{v.p}.String() }

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

func (v switchValue) String() string { return textValue{v.p}.String() }

func (v switchValue) Set(s string) error {
	sw, err := time.Parse("01-02", s)
	if err != nil {
		return errors.New("must be MM-DD, such as 06-01")
	}
	*v.p, *v.month, *v.day = s, sw.Month(), sw.Day()
	return nil
}

// levelValue is a log level.
type levelValue struct {
	p     *string
	level *slog.Level
}

func (v levelValue) String() string { return textValue{v.p}.String() }

func (v levelValue) Set(s string) error {
	if err := v.level.UnmarshalText([]byte(s)); err != nil {
		return errors.New("must be debug, info, warn or error")
	}
	*v.p = s
	return nil
}
