package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	neturl "net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/settings"
	"github.com/footdata/footballd/pkg/model"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// fetchableFormats lists the formats a feed can follow.
func fetchableFormats() []string {
	var out []string
	for name, f := range importer.Formats {
		if f.Fetchable() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func feedAdd() command {
	var format, url, league, every, leagues string
	var season int
	var createTeams bool
	var live model.Feed
	return command{name: "feed add", args: "NAME --format FORMAT --url URL [--league CODE --season YYYY] [--every 10m] [--create-teams] [live API flags]",
		summary: "register a source that `ingest follow` keeps current",
		example: "ingest feed add pl-openfootball --format openfootball --url https://raw.githubusercontent.com/openfootball/football.json/master/2025-26/en.1.json --every 30m",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "", "import `format` of the document: "+strings.Join(fetchableFormats(), ", "))
			fs.StringVar(&url, "url", "", "http, https or file `URL` of the document; for a live API (openligadb, football-data-org), the API's base URL")
			fs.StringVar(&league, "league", "", "league `code` (default: what the format reads from the URL's path, or the source's league)")
			fs.IntVar(&season, "season", 0, "season start `year` (default: what the format reads from the URL's path)")
			fs.StringVar(&every, "every", model.DefaultFeedEvery.String(), "time between fetches, from 1s to 168h; for a live API, when no match is on or near")
			fs.BoolVar(&createTeams, "create-teams", false, "create a team for a name no team has (default: hold its fixtures back and report the name)")
			fs.StringVar(&live.SourceLeague, "source-league", "", "the live API's own `shortcut` of the league (openligadb: bl1, bl2, bl3, dfb)")
			fs.StringVar(&leagues, "leagues", "", "comma-separated competition `codes` a live API feed follows")
			fs.StringVar(&live.TokenFile, "token-file", "", "`file` holding the API token, read by every follower (only its path is stored)")
			fs.StringVar(&live.TokenEnv, "token-env", "", "environment `variable` holding the API token on every follower (only its name is stored)")
			fs.IntVar(&live.UpstreamPerMinute, "upstream-per-minute", 0, fmt.Sprintf("calls a minute the source allows the token (default: the format's; football-data-org %d)", follow.FootballDataOrgPerMinute))
			fs.IntVar(&live.UpstreamPerDay, "upstream-per-day", 0, fmt.Sprintf("calls a day the source allows (default: the format's; openligadb %d)", follow.OpenLigaDBPerDay))
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one feed NAME")
			}
			d, err := time.ParseDuration(every)
			if err != nil || d%time.Second != 0 {
				return model.Invalidf("every", every, "must be a whole number of seconds written as a duration, such as 30s, 10m or 1h")
			}
			f := live
			f.Name, f.Format, f.URL, f.Season, f.EverySeconds, f.CreateTeams = pos[0], format, url, season, int(d/time.Second), createTeams
			if league != "" {
				if f.League, err = model.ParseLeagueCode(league); err != nil {
					return err
				}
			}
			if f.Competitions, err = competitions(leagues); err != nil {
				return err
			}
			if err := f.ValidateDraft(); err != nil {
				return err
			}
			if err := liveFeed(&f); err != nil {
				return err
			}
			if im, ok := importer.Formats[format]; !ok || !im.Fetchable() {
				return model.Invalidf("format", format, "must be one a feed can follow: %s", strings.Join(fetchableFormats(), ", "))
			}
			if err := e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.AddFeed(ctx, f) }); err != nil {
				return err
			}
			warnGuarded(e, f.URL)
			return nil
		}}
}

// warnGuarded warns, on stderr, when a feed's URL is one the followers
// refuse unless they are told to read it (--feed-allow, --feed-files):
// the editor cannot see their flags, and learns it now rather than from
// `feed show` once a poll has failed.
func warnGuarded(e *env, raw string) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return
	}
	if u.Scheme == "file" {
		fmt.Fprintf(e.stderr, "warning: followers read a file URL only under the folders given to `ingest follow --feed-files`, such as --feed-files %s\n", filepath.Dir(u.Path))
		return
	}
	if why := netguard.NotPublicHost(u.Hostname()); why != "" {
		fmt.Fprintf(e.stderr, "warning: %s is not a public address (%s): followers refuse it unless they run with --feed-allow naming it, such as --feed-allow %s\n",
			u.Hostname(), why, allowFor(u.Hostname()))
	}
}

// competitions reads --leagues: codes separated by commas.
func competitions(leagues string) ([]model.LeagueCode, error) {
	if leagues == "" {
		return nil, nil
	}
	var out []model.LeagueCode
	for c := range strings.SplitSeq(leagues, ",") {
		code, err := model.ParseLeagueCode(strings.TrimSpace(c))
		if err != nil {
			return nil, model.Invalidf("leagues", c, "must be competition codes separated by commas, such as PL,CL")
		}
		out = append(out, code)
	}
	return out, nil
}

// liveFeed checks and completes what a live API's feed adds: its
// league, season and token; a feed of a file has none of it.
func liveFeed(f *model.Feed) error {
	if !follow.IsLive(f.Format) {
		if f.SourceLeague != "" || f.Competitions != nil || f.TokenFile != "" || f.TokenEnv != "" || f.UpstreamPerMinute != 0 || f.UpstreamPerDay != 0 {
			return model.Invalidf("format", f.Format, "a feed of a file takes none of --source-league, --leagues, --token-file, --token-env, --upstream-per-minute, --upstream-per-day")
		}
		return nil
	}
	if u, err := neturl.Parse(f.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return model.Invalidf("url", f.URL, "must be the API's http or https base URL, such as https://api.openligadb.de")
	}
	if err := liveToken(f); err != nil {
		return err
	}
	switch f.Format {
	case "openligadb":
		return openLigaDBFeed(f)
	case "football-data-org":
		if len(f.Competitions) == 0 {
			return model.Invalidf("leagues", "", "a football-data-org feed needs its competitions' codes, such as --leagues PL,CL,BL1")
		}
	}
	return nil
}

// liveToken checks that a feed that needs a token names where it is, and
// makes a token file's path absolute: every follower reads it there.
func liveToken(f *model.Feed) error {
	if f.TokenFile != "" {
		abs, err := filepath.Abs(f.TokenFile)
		if err != nil {
			return model.Invalidf("token-file", f.TokenFile, "%v", err)
		}
		f.TokenFile = abs
	}
	if follow.NeedsToken(f.Format) && f.TokenFile == "" && f.TokenEnv == "" {
		return model.Invalidf("token-file", "", "a %s feed needs its API token: give --token-file FILE or --token-env VARIABLE", f.Format)
	}
	return nil
}

// openLigaDBFeed checks an OpenLigaDB feed's league and season, and
// derives our league code from the source's shortcut (bl1 is BL1).
func openLigaDBFeed(f *model.Feed) error {
	switch {
	case f.SourceLeague == "":
		return model.Invalidf("source-league", "", "an openligadb feed needs the league's shortcut, such as bl1")
	case f.Season == 0:
		return model.Invalidf("season", "", "an openligadb feed needs the season's start year, such as 2025")
	case f.League == "":
		if f.League = importer.OpenLigaDBLeagues[f.SourceLeague]; f.League == "" {
			return model.Invalidf("league", "", "no league code known for the shortcut %s: give one with --league", f.SourceLeague)
		}
	}
	return nil
}

// feeds connects and opens the feeds' statuses.
func (e *env) feeds(ctx context.Context) (*editor.Editor, *follow.State, error) {
	ed, err := e.editor(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, err := follow.Open(ctx, ed.Store.Conn())
	return ed, st, err
}

// feedStatus is the feed named name and its status, with the feeds'
// state for what the caller does next.
func (e *env) feedStatus(ctx context.Context, name string) (*follow.State, model.Feed, follow.Status, error) {
	ed, states, err := e.feeds(ctx)
	if err != nil {
		return nil, model.Feed{}, follow.Status{}, err
	}
	f, err := ed.Feed(ctx, name)
	if err != nil {
		return nil, model.Feed{}, follow.Status{}, err
	}
	st, _, err := states.Status(ctx, f.Name, f.Created)
	return states, f, st, err
}

// feedState is where a feed stands, in a word.
func feedState(f model.Feed) string {
	switch {
	case f.Removed:
		return "removed"
	case f.Paused:
		return "paused"
	}
	return "active"
}

func feedList() command {
	return command{name: "feed list", args: "", summary: "list feeds: state, schedule, last result, next poll", example: "ingest feed list",
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			ed, states, err := e.feeds(ctx)
			if err != nil {
				return err
			}
			feeds, err := ed.Feeds(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tFORMAT\tSTATE\tEVERY\tLAST RESULT\tNEXT POLL\tURL")
			for _, f := range feeds {
				st, _, err := states.Status(ctx, f.Name, f.Created)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Format, feedState(f), f.Every(), or(st.Result, "-"), when(st.NextPoll), f.URL)
			}
			return w.Flush()
		}}
}

// when formats a time for a table: "-" when unset.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func feedShow() command {
	return command{name: "feed show", args: "NAME",
		summary: "show a feed: its source, and its last fetch, status, ETag, changes published, last error and next poll",
		example: "ingest feed show pl-openfootball",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one feed NAME")
			}
			states, f, st, err := e.feedStatus(ctx, pos[0])
			if err != nil {
				return err
			}
			holder, err := states.Holder(ctx, f.Name)
			if err != nil {
				return err
			}
			league, season := "from the URL", "from the URL"
			if f.League != "" {
				league = string(f.League)
			}
			if f.Season != 0 {
				season = fmt.Sprint(f.Season)
			}
			teams := "held back when unknown"
			if f.CreateTeams {
				teams = "created when unknown"
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "name:\t%s\nformat:\t%s\nurl:\t%s\nleague:\t%s\nseason:\t%s\nevery:\t%s\nteams:\t%s\nstate:\t%s\ncreated:\t%s\n",
				f.Name, f.Format, f.URL, league, season, f.Every(), teams, feedState(f), when(f.Created))
			fmt.Fprintf(w, "lease holder:\t%s\nlast fetch:\t%s\nlast result:\t%s\nlast success:\t%s\nnext poll:\t%s\n",
				or(holder, "none"), when(st.LastFetch), or(st.Result, "-"), when(st.LastSuccess), when(st.NextPoll))
			fmt.Fprintf(w, "etag:\t%s\nlast modified:\t%s\nmatches:\t%d\nchanges published:\t%d\nfailures in a row:\t%d\n",
				or(st.ETag, "-"), or(st.LastModified, "-"), st.Matches, st.Changes, st.Failures)
			if follow.IsLive(f.Format) {
				if err := showLive(ctx, w, states, f, st); err != nil {
					return err
				}
			}
			if len(st.HeldBack) > 0 {
				var names []string
				for _, n := range slices.Sorted(maps.Keys(st.HeldBack)) {
					names = append(names, fmt.Sprintf("%s (%d)", n, st.HeldBack[n]))
				}
				fmt.Fprintf(w, "held back:\t%s: no team has these names (`ingest team alias`, or add the feed with --create-teams)\n", strings.Join(names, ", "))
			}
			if st.Rejected > 0 {
				fmt.Fprintf(w, "rejected fixtures:\t%d\n", st.Rejected)
			}
			showDisagreements(w, st.Disagreements)
			lastError := "-"
			if st.LastError != "" {
				lastError = when(st.ErrorAt) + " " + st.LastError
			}
			fmt.Fprintf(w, "last error:\t%s\n", lastError)
			return w.Flush()
		}}
}

// shownDisagreements is how many disagreements `feed show` lists: two
// sources of a season may disagree on many kick-offs, and the count says
// how many there are.
const shownDisagreements = 20

// showDisagreements prints the fields of fixtures whose stored value holds
// against what the source says, and both values.
func showDisagreements(w io.Writer, ds []importer.Disagreement) {
	fmt.Fprintf(w, "disagreements:\t%d\n", len(ds))
	for i, d := range ds {
		if i == shownDisagreements {
			fmt.Fprintf(w, "\t... and %d more\n", len(ds)-i)
			break
		}
		fmt.Fprintf(w, "\tfixture %d (%s) %s: the source says %s, the stream holds %s\n", d.Fixture, d.Match, d.Field, d.Source, d.Stored)
	}
}

// showLive prints what a live API's feed adds to `feed show`: where its
// token is (never the token), its budget, and where its matches stand.
func showLive(ctx context.Context, w io.Writer, states *follow.State, f model.Feed, st follow.Status) error {
	token := "none"
	switch {
	case f.TokenFile != "":
		token = "file " + f.TokenFile
	case f.TokenEnv != "":
		token = "environment variable " + f.TokenEnv
	}
	var comps []string
	for _, c := range f.Competitions {
		comps = append(comps, string(c))
	}
	fmt.Fprintf(w, "source league:\t%s\ncompetitions:\t%s\ntoken:\t%s\n", or(f.SourceLeague, "-"), or(strings.Join(comps, ","), "-"), token)
	live := follow.Live{}
	if st.Live != nil {
		live = *st.Live
	}
	budget := "-"
	if live.Budget != "" {
		used, limit, ends, ok, err := states.Budget(ctx, live.Budget)
		if err != nil {
			return err
		}
		if ok {
			budget = fmt.Sprintf("%d of %d calls spent, until %s", used, limit, when(ends))
		}
	}
	pace := "-"
	if live.Pace > 0 {
		pace = live.Pace.Round(10 * time.Millisecond).String()
	}
	fmt.Fprintf(w, "budget:\t%s\nupstream calls:\t%d\npace while live:\t%s\nin play:\t%d\nnext kick-off:\t%s\n",
		budget, live.Calls, pace, live.InPlay, when(live.NextKickoff))
	return nil
}

func feedPause(paused bool) command {
	name, summary := "feed pause", "stop polling a feed until it is resumed; what it published stays"
	if !paused {
		name, summary = "feed resume", "poll a paused feed again, the first time at once"
	}
	return command{name: name, args: "NAME", summary: summary, example: "ingest " + name + " pl-openfootball",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one feed NAME")
			}
			err := e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.PauseFeed(ctx, pos[0], paused) })
			if err != nil || paused || e.global.dryRun {
				return err
			}
			_, states, err := e.feeds(ctx)
			if err != nil {
				return err
			}
			if _, err := states.RequestPoll(ctx, pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "poll requested: the follower that takes %s polls it at once (`ingest feed poll %s` waits for what it finds)\n", pos[0], pos[0])
			return nil
		}}
}

// feedPoll is `ingest feed poll`: a poll at once, made by the follower
// holding the feed's lease (State.RequestPoll), whose outcome it shows.
func feedPoll() command {
	var wait time.Duration
	return command{name: "feed poll", args: "NAME [--wait 1m]",
		summary: "poll a feed at once, through the follower holding it, and show what the poll found",
		example: "ingest feed poll pl-openfootball",
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&wait, "wait", time.Minute, "how long to wait for a follower to poll it")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one feed NAME")
			}
			if wait <= 0 {
				return usagef("--wait %s: must be more than 0", wait)
			}
			if e.global.dryRun {
				return usagef("--dry-run: a poll publishes what it finds changed; `ingest feed show %s` shows the last one", pos[0])
			}
			states, f, before, err := e.feedStatus(ctx, pos[0])
			if err != nil {
				return err
			}
			if f.Removed || f.Paused {
				return model.Invalidf("feed", f.Name, "is %s: only an active feed is polled (`ingest feed resume %s` polls a paused one at once)", feedState(f), f.Name)
			}
			rev, err := states.RequestPoll(ctx, f.Name)
			if err != nil {
				return err
			}
			st, err := awaitPoll(ctx, states, f, rev, wait)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "feed %s polled by %s at %s: %s, %d change(s) published\n", f.Name, or(st.Holder, "-"), when(st.LastFetch),
				or(st.Result, "-"), st.Changes-before.Changes)
			if st.Result == follow.ResultError || st.Result == follow.ResultSuspect {
				fmt.Fprintf(e.stdout, "error: %s\n", st.LastError)
			}
			fmt.Fprintf(e.stdout, "next poll: %s\n", when(st.NextPoll))
			return nil
		}}
}

// awaitPoll waits until a poll has answered the poll request rev of f, and
// returns the status it left.
func awaitPoll(ctx context.Context, states *follow.State, f model.Feed, rev uint64, wait time.Duration) (follow.Status, error) {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		st, _, err := states.Status(ctx, f.Name, f.Created)
		if err != nil || st.PollServed >= rev {
			return st, err
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("no follower polled feed %s within %s: is `ingest follow` running? (`ingest feed show %s` names the lease holder)", f.Name, wait, f.Name)
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-tick.C:
		}
	}
}

func feedRemove() command {
	return command{name: "feed remove", args: "NAME", summary: "stop a feed for good; what it published stays, and the name may be added again",
		example: "ingest feed remove pl-openfootball",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one feed NAME")
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.RemoveFeed(ctx, pos[0]) })
		}}
}

// followCommand is `ingest follow`: the long-running follower of every
// feed, with an admin listener for Prometheus and probes.
func followCommand() command {
	var cfg follow.Config
	var adminListen string
	var lvl slog.Level
	return command{name: "follow", args: "[--admin-listen ADDR] [--feed-allow LIST] [--feed-files DIR,…] [--max-shrink 0.2] [--lease 6s] [flags]",
		summary: "keep every feed current: poll each on its schedule and publish what changed (runs until stopped)",
		example: "FD_NATS_URL=nats://ingest:PASSWORD@fd-nats-1:4222 ingest follow --admin-listen 127.0.0.1:9190",
		flags: func(fs *flag.FlagSet) {
			followSettings(&cfg, &adminListen, &lvl).Register(fs)
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			if e.global.dryRun {
				return usagef("--dry-run: follow has no dry run: point it at a scratch stream instead")
			}
			log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))
			ed, states, err := e.feeds(ctx)
			if err != nil {
				return err
			}
			registry := prometheus.NewRegistry()
			registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			cfg.Store, cfg.State, cfg.Log, cfg.Registerer, cfg.Editor, cfg.Getenv = ed.Store, states, log, registry, e.global.editor, e.getenv
			fl, err := follow.New(cfg)
			if err != nil {
				return usagef("%v", err)
			}
			if adminListen != "" {
				ln, err := net.Listen("tcp", adminListen)
				if errors.Is(err, syscall.EADDRINUSE) {
					return fmt.Errorf("--admin-listen %s: address already in use (by another follower on this host?): give each its own, or --admin-listen '' for none", adminListen)
				}
				if err != nil {
					return fmt.Errorf("--admin-listen %s: %w", adminListen, err)
				}
				admin := &http.Server{Handler: followAdmin(registry, fl), ReadHeaderTimeout: 10 * time.Second}
				go func() { _ = admin.Serve(ln) }()
				defer func() {
					sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					_ = admin.Shutdown(sctx)
				}()
				log.Info("admin listening", "addr", ln.Addr().String())
			}
			log.Info("following", "holder", fl.Holder(), "lease", cfg.LeaseTTL.String(), "max_shrink", cfg.MaxShrink)
			err = fl.Run(ctx)
			log.Info("stopped")
			return err
		}}
}

// followSettings are follow's flags; the defaults and bounds are the
// follower's (follow.Config).
func followSettings(cfg *follow.Config, adminListen *string, lvl *slog.Level) settings.Table {
	return settings.Table{
		{Name: "admin-listen", Arg: "ADDRESS", Usage: "address of the admin listener (/metrics, /healthz, /readyz); empty for none", Value: settings.Addr(adminListen, "127.0.0.1:9190", true)},
		{Name: "max-shrink", Arg: "SHARE", Usage: "share of the last good document's matches a new one may lose before it is refused as suspect (1: never refused)", Value: settings.Float(&cfg.MaxShrink, follow.DefaultMaxShrink, 0, 1)},
		{Name: "lease", Arg: "DURATION", Usage: "how long a feed's lease outlives its holder: another follower takes a killed one's feeds over after about that long", Value: settings.Duration(&cfg.LeaseTTL, follow.DefaultLeaseTTL, follow.MinLeaseTTL, 0)},
		{Name: "concurrency", Arg: "N", Usage: "feeds polled at once", Value: settings.Int(&cfg.Concurrency, follow.DefaultConcurrency, 1, 0)},
		{Name: "connect-timeout", Arg: "DURATION", Usage: "bound on a connection and its TLS handshake", Value: settings.Duration(&cfg.ConnectTimeout, follow.DefaultConnectTimeout, time.Nanosecond, 0)},
		{Name: "header-timeout", Arg: "DURATION", Usage: "bound on the wait for a response's headers", Value: settings.Duration(&cfg.HeaderTimeout, follow.DefaultHeaderTimeout, time.Nanosecond, 0)},
		{Name: "fetch-timeout", Arg: "DURATION", Usage: "bound on a whole fetch, body included", Value: settings.Duration(&cfg.FetchTimeout, follow.DefaultFetchTimeout, time.Nanosecond, 0)},
		{Name: "max-bytes", Arg: "BYTES", Usage: "largest document read, in bytes", Value: settings.Int(&cfg.MaxBody, follow.DefaultMaxBody, 1, 0)},
		{Name: "min-rate", Arg: "BYTES", Usage: "bytes a second a body must come at on average, 3s after the headers: a source trickling slower is cut off", Value: settings.Int(&cfg.MinRate, follow.DefaultMinRate, 1, 0)},
		{Name: "max-backoff", Arg: "DURATION", Usage: "longest wait after failures in a row (never less than the feed's schedule)", Value: settings.Duration(&cfg.MaxBackoff, follow.DefaultMaxBackoff, time.Nanosecond, 0)},
		{Name: "holder", Arg: "NAME", Usage: "name of this follower in leases and statuses (default: host, process id and a random suffix)", Value: settings.Text(&cfg.Holder, "")},
		{Name: "log-level", Arg: "LEVEL", Usage: "debug, info, warn or error", Value: settings.Level(lvl, slog.LevelInfo)},
		{Name: "feed-allow", Arg: "LIST", Usage: "comma-separated list of where feeds may be fetched from besides public addresses: CIDRs (the only way to loopback or private addresses, such as 127.0.0.1/32) and host patterns (data.example.org, *.example.org; when given, public hosts must match one)", Value: settings.Allow(&cfg.Allow)},
		{Name: "feed-files", Arg: "FOLDERS", Usage: "comma-separated folders under which file URLs may be read (default none: file URLs are refused)", Value: settings.List(&cfg.Files)},
		{Name: "token-files", Arg: "FOLDERS", Usage: "comma-separated folders under which live feeds' --token-file may be read (default none)", Value: settings.List(&cfg.TokenFiles)},
		{Name: "token-vars", Arg: "NAMES", Usage: "comma-separated environment variables live feeds' --token-env may name (default none)", Value: settings.List(&cfg.TokenVars)},
	}
}

// followAdmin is the follower's admin listener: metrics, and probes
// (ready once it has read the feeds).
func followAdmin(reg *prometheus.Registry, fl *follow.Follower) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !fl.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"starting","reason":"the feeds have not been read from the stream yet"}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	})
	return mux
}
