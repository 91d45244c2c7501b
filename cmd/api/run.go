package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/internal/httpapi"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// replayGCPercent is GOGC during the replay.
const replayGCPercent = 400

// replays counts the replays running in the process. GOGC is the
// process's, and replicas started side by side in one process (the tests
// do) would otherwise each save and restore it: the second saves the
// first's 400 and restores that. The first replay to start raises it, the
// last to end puts back what it was.
var replays struct {
	sync.Mutex
	n     int
	saved int
}

func replayStarted() {
	replays.Lock()
	defer replays.Unlock()
	if replays.n == 0 {
		replays.saved = debug.SetGCPercent(replayGCPercent)
	}
	replays.n++
}

// replayEnded puts GOGC back once no replay runs, and hands the replays'
// garbage back to the system at once.
func replayEnded() {
	replays.Lock()
	defer replays.Unlock()
	replays.n--
	if replays.n == 0 {
		debug.SetGCPercent(replays.saved)
		debug.FreeOSMemory()
	}
}

// dial is how the replica reaches NATS.
func (c *config) dial(log *slog.Logger) events.Dial {
	return events.Dial{URL: c.natsURL, Name: "api", CA: c.natsCA, Cert: c.natsCert, Key: c.natsKey, Log: log}
}

// attachTimeout bounds each look at NATS while the replica waits for it.
const attachTimeout = 10 * time.Second

// attach connects to NATS and finds the stream, the budgets bucket and the
// webhook queue and states, waiting as long as it takes: a replica may
// start before its NATS cluster, or before an operator has set the stream
// up (`ingest stream init`). Why it waits is in the log (when the reason
// changes, and once a minute) and in /readyz. It changes nothing in NATS.
func attach(ctx context.Context, log *slog.Logger, cfg *config, srv *httpapi.Server) (*events.Store, *events.Budgets, error) {
	var nc *nats.Conn
	wait, last, lastLogged := 250*time.Millisecond, "", time.Time{}
	for attempt := 1; ; attempt++ {
		var store *events.Store
		var budgets *events.Budgets
		var err error
		if nc == nil {
			// The client reconnects on its own once it has connected.
			nc, err = cfg.dial(log).Conn()
		}
		if err == nil {
			store, budgets, err = find(ctx, nc, cfg.stallAfter)
		}
		if err == nil {
			srv.Waiting("")
			if attempt > 1 {
				log.Info("nats ready", "url", events.Redacted(cfg.natsURL), "attempts", attempt)
			}
			return store, budgets, nil
		}
		reason := waitReason(cfg, err)
		srv.Waiting(reason)
		if reason != last || time.Since(lastLogged) >= time.Minute {
			log.Warn("waiting for nats", "reason", reason, "attempt", attempt, "retry_in", wait.String())
			last, lastLogged = reason, time.Now()
		}
		select {
		case <-ctx.Done():
			if nc != nil {
				nc.Close()
			}
			return nil, nil, fmt.Errorf("%s: %w", reason, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// find opens the stream and the budgets bucket on nc, and checks that the
// webhook queue and states are there, without changing any. stallAfter
// bounds how long the store's consumer may stall (events.StreamConfig).
func find(ctx context.Context, nc *nats.Conn, stallAfter time.Duration) (*events.Store, *events.Budgets, error) {
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	store, err := events.Open(ctx, nc, events.StreamConfig{StallAfter: stallAfter})
	if err != nil {
		return nil, nil, err
	}
	budgets, err := store.Budgets(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := webhook.Check(ctx, nc); err != nil {
		return nil, nil, err
	}
	return store, budgets, nil
}

// waitReason says, for an operator, why the replica cannot start yet and
// what to do about it.
func waitReason(cfg *config, err error) string {
	var perm *events.PermissionError
	switch {
	case errors.As(err, &perm):
		return perm.Error()
	case errors.Is(err, events.ErrNotProvisioned):
		return err.Error()
	case errors.Is(err, nats.ErrNoServers), errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrAuthorization),
		strings.HasPrefix(err.Error(), "connect to nats"):
		return fmt.Sprintf("nats at %s not reachable: %v", events.Redacted(cfg.natsURL), err)
	}
	return fmt.Sprintf("nats at %s does not answer yet (a cluster electing its leaders answers in seconds): %v", events.Redacted(cfg.natsURL), err)
}

// bodyPath is the directory --body-dir names (by default in the system's
// cache directory, defaultBodyDir), "" for memory files.
func (c *config) bodyPath(log *slog.Logger) string {
	switch c.bodyDir {
	case "memory":
		return ""
	case "":
		log.Warn("large cached bodies kept in memory files: neither $XDG_CACHE_HOME nor $HOME is set; --body-dir names a directory")
	}
	return c.bodyDir
}

// log writes the effective configuration, once, at start. It holds no
// secret: tokens live in the stream, hashed, and the NATS password is
// masked.
func (c *config) log(log *slog.Logger) {
	log.Info("configuration", "listen", c.listen, "admin_listen", c.adminListen, "nats", events.Redacted(c.natsURL), "embedded_nats", c.embeddedNATS,
		"public_url", c.publicURL, "cache_mb", c.cacheMB, "body_dir", c.bodyDir, "trusted_proxies", fmt.Sprint(c.proxies), "trusted_proxy_header", c.proxyHeader,
		"anonymous_per_day", c.anonPerDay, "season_switch", c.seasonSwitch, "now", c.now, "nats_ca", c.natsCA, "nats_cert", c.natsCert,
		"drain", c.drain.String(), "access_log", c.accessLog, "log_level", strings.ToLower(c.level.String()), "sse_keepalive", c.keepAlive.String(),
		"streams_per_ip", c.streamsIP, "streams_per_client", c.streamsCli, "event_history", c.history, "webhook_allow", c.webhookAllow.String(),
		"webhook_workers", c.webhookWorkers, "webhook_timeout", c.webhookTimeout.String(), "token_lookup_timeout", c.tokenLookup.String(),
		"token_lookups_per_minute", c.tokenLookups, "conns_per_ip", c.connsPerIP, "stall_after", c.stallAfter.String(),
		"build", buildinfo.Read().String())
}

// webhookBase is the base of the links in webhook events: the public URL,
// else this replica's own address, as no request says which host the
// client used.
func (c *config) webhookBase() string {
	if base := strings.TrimSpace(c.publicURL); base != "" {
		return strings.TrimSuffix(base, "/")
	}
	host, port, _ := net.SplitHostPort(c.listen)
	if host == "" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// clock is the service's one clock: the wall clock (nil, the read model's
// default, which then takes the time each request came in from the HTTP
// server), or one that starts at --now and runs on from there.
func (c *config) clock() func() time.Time {
	if c.fixedNow.IsZero() {
		return nil
	}
	start := time.Now()
	return func() time.Time { return c.fixedNow.Add(time.Since(start)) }
}

// provisionEmbedded sets up the stream, buckets and work queue on the
// replica's own server (single-machine mode: one server, R1).
func provisionEmbedded(ctx context.Context, cfg *config, log *slog.Logger) error {
	nc, err := cfg.dial(log).Conn()
	if err != nil {
		return err
	}
	defer nc.Close()
	if _, err := provision.Run(ctx, nc, events.StreamConfig{}); err != nil {
		return fmt.Errorf("single-machine mode: %w", err)
	}
	return nil
}

// startEmbedded starts the single-machine mode's NATS server and sets up
// what the replica keeps there, as `ingest stream init` does on a cluster.
func startEmbedded(ctx context.Context, cfg *config, log *slog.Logger) (stop func(), err error) {
	u, _ := url.Parse(cfg.natsURL)
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return nil, fmt.Errorf("--nats %q: single-machine mode needs a port", events.Redacted(cfg.natsURL))
	}
	ns, err := natsembed.Start(natsembed.Options{Dir: cfg.embeddedNATS, Host: u.Hostname(), Port: port})
	if err != nil {
		return nil, err
	}
	// Port 0 takes a free port: the replica, and whoever reads this log
	// line (a test, an editor's `ingest --nats`), reach the one it got.
	u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(ns.Addr().(*net.TCPAddr).Port))
	cfg.natsURL = u.String()
	log.Info("embedded nats started", "url", events.Redacted(cfg.natsURL), "dir", cfg.embeddedNATS)
	if err := provisionEmbedded(ctx, cfg, log); err != nil {
		ns.Stop()
		return nil, err
	}
	return ns.Stop, nil
}

// serveAdmin serves /metrics, /healthz and /readyz on --admin-listen (nil
// when it is empty); a failure of the listener goes to httpErr.
func serveAdmin(cfg *config, srv *httpapi.Server, log *slog.Logger, httpErr chan<- error) (*http.Server, error) {
	if cfg.adminListen == "" {
		return nil, nil
	}
	aln, err := net.Listen("tcp", cfg.adminListen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--admin-listen %s: address already in use (by another replica on this host?): give each replica its own, such as --admin-listen 127.0.0.1:9091, or --admin-listen '' for none", cfg.adminListen)
	}
	if err != nil {
		return nil, fmt.Errorf("--admin-listen %s: %w", cfg.adminListen, err)
	}
	admin := &http.Server{Handler: srv.AdminHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := admin.Serve(aln); !errors.Is(err, http.ErrServerClosed) {
			httpErr <- fmt.Errorf("admin listener: %w", err)
		}
	}()
	log.Info("admin listening", "addr", boundAddr(cfg.adminListen, aln))
	return admin, nil
}

// boundAddr is listen with the port ln got: the same host as asked
// (empty for every interface), the port it was given when listen asked
// for port 0.
func boundAddr(listen string, ln net.Listener) string {
	host, _, _ := net.SplitHostPort(listen)
	return net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// drain stops being ready, gives load balancers time to notice, then
// finishes the requests in flight within a deadline.
func drain(cfg *config, log *slog.Logger, srv *httpapi.Server, hub *push.Hub, admin *http.Server) {
	log.Info("shutting down", "drain", cfg.drain.String())
	srv.Drain()
	time.Sleep(cfg.drain)
	// Event streams never finish on their own: end them, so that their
	// clients reconnect (with Last-Event-ID) to another replica.
	hub.Close()
	if err := srv.App().ShutdownWithTimeout(10 * time.Second); err != nil {
		log.Warn("shutdown", "err", err)
	}
	if admin != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = admin.Shutdown(sctx)
		cancel()
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if cfg.version {
		fmt.Fprintf(stdout, "api %s\n", buildinfo.Read())
		return nil
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.level}))

	if cfg.embeddedNATS != "" {
		stop, err := startEmbedded(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	clock := cfg.clock()
	hub, err := push.NewHub(push.HubConfig{History: cfg.history})
	if err != nil {
		return err
	}
	defer hub.Close()
	// sinks receive the push events the read model derives from live
	// edits, on its writer, in stream order: each must return at once.
	sinks := []func([]push.Event){hub.Publish}
	model, err := readmodel.New(readmodel.Config{Now: clock, SwitchMonth: cfg.switchMonth, SwitchDay: cfg.switchDay, Log: log,
		Events: func(evs []push.Event) {
			for _, sink := range sinks {
				sink(evs)
			}
		}})
	if err != nil {
		return err
	}
	// One registry for the HTTP server's and the webhooks' metrics.
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv, err := httpapi.New(httpapi.Options{Model: model, PublicURL: strings.TrimSpace(cfg.publicURL), Registry: registry,
		CacheBytes: int64(cfg.cacheMB) << 20, TrustedProxies: cfg.proxies, TrustedProxyHeader: cfg.proxyHeader,
		AnonymousPerDay: cfg.anonPerDay, AccessLog: cfg.accessLog, Log: log,
		Hub: hub, StreamsPerIP: cfg.streamsIP, StreamsPerClient: cfg.streamsCli, KeepAlive: cfg.keepAlive, TokenLookupTimeout: cfg.tokenLookup,
		TokenLookupsPerMinute: cfg.tokenLookups, ConnsPerIP: cfg.connsPerIP, BodyDir: cfg.bodyPath(log)})
	if err != nil {
		return err
	}
	defer srv.Close()
	cfg.log(log)

	// The listeners come first: until the stream is replayed the replica
	// answers 503, so that a load balancer sees it starting.
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", cfg.listen, err)
	}
	// Port 0 takes a free port: links (webhookBase) and this log line
	// name the one it got.
	cfg.listen = boundAddr(cfg.listen, ln)
	httpErr := make(chan error, 2)
	go func() { httpErr <- srv.Serve(ln) }()
	log.Info("listening", "addr", cfg.listen)
	admin, err := serveAdmin(cfg, srv, log, httpErr)
	if err != nil {
		return err
	}

	store, budgets, err := attach(ctx, log, cfg, srv)
	if err != nil {
		return err
	}
	defer store.Close()
	srv.ShareBudgets(budgets)
	srv.ShareStream(store)
	srv.LookUpTokens(store)
	hooks, err := webhook.New(webhook.Config{Conn: store.Conn(), Hooks: func() webhook.Hooks { return model.Snapshot() },
		PublicURL: cfg.webhookBase(), Allow: cfg.webhookAllow, Workers: cfg.webhookWorkers, Timeout: cfg.webhookTimeout,
		Log: log, Registerer: registry})
	if err != nil {
		return err
	}
	// Before the model runs, so that its writer never sees the list
	// change.
	sinks = append(sinks, hooks.Publish)

	runCtx, stopModel := context.WithCancel(context.WithoutCancel(ctx))
	defer stopModel()
	hooksCtx, stopHooks := context.WithCancel(runCtx)
	defer stopHooks()
	hooksDone := make(chan struct{})
	go func() {
		defer close(hooksDone)
		// Deliveries are matched against the read model: this replica
		// takes its share once it has replayed the stream.
		if model.WaitReady(hooksCtx) == nil {
			hooks.Run(hooksCtx)
		}
	}()
	modelErr := make(chan error, 1)
	// The replay builds the model in one go and keeps most of what it
	// allocates, so collecting garbage at the usual pace is mostly wasted
	// work (a third of the replay in issue 12's profile of it):
	// collect less often until ready, then return to the usual pace and
	// hand the replay's garbage back to the system at once.
	replayStarted()
	go func() {
		start := time.Now()
		go func() {
			err := model.WaitReady(runCtx)
			replayEnded()
			if err == nil {
				log.Info("replay complete", "duration", time.Since(start).String(), "seq", model.Stats().LastSeq)
			}
		}()
		modelErr <- model.Run(runCtx, store)
	}()

	select {
	case <-ctx.Done():
	case err := <-modelErr:
		return fmt.Errorf("read model stopped: %w", err)
	case err := <-httpErr:
		return fmt.Errorf("http server stopped: %w", err)
	}
	drain(cfg, log, srv, hub, admin)
	// Deliveries in hand are handed back to the other replicas.
	stopHooks()
	<-hooksDone
	stopModel()
	<-modelErr
	log.Info("stopped")
	return nil
}
