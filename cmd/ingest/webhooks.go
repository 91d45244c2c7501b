package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	neturl "net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/model"
)

func webhookAdd() command {
	var client, url, evs, comps, leagues, version string
	return command{name: "webhook add", args: "NAME --client CLIENT --url URL [--events KIND,…] [--competitions ID,…] [--leagues CODE,…] [--version v1|v4]",
		summary: "register a client's webhook and print its signing secret once; it gets events once its host is verified",
		example: "ingest webhook add acme-live --client acme --url https://hooks.acme.example/football --events Fixture.Update --leagues PL,BL1",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&client, "client", "", "the API `client` the webhook belongs to: it gets what the client's tier may see")
			fs.StringVar(&url, "url", "", "absolute http or https `URL` the events are POSTed to")
			fs.StringVar(&evs, "events", "", "event `kinds`, comma-separated: "+strings.Join(model.WebhookEvents, ",")+" (default every kind)")
			fs.StringVar(&comps, "competitions", "", "competition `ids`, comma-separated (default every competition)")
			fs.StringVar(&leagues, "leagues", "", "league `codes`, comma-separated (default every league)")
			fs.StringVar(&version, "version", "v1", "the API `version` the events' URIs point into: "+strings.Join(model.WebhookVersions, " or "))
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one webhook NAME")
			}
			w := model.Webhook{Name: pos[0], Client: client, URL: url, Events: list(evs), Version: version}
			if version == "v1" {
				// v1 is what a webhook without a version gets: stored
				// as before, so that older replicas read it the same.
				w.Version = ""
			}
			var err error
			if w.Competitions, err = intList("competitions", comps); err != nil {
				return err
			}
			for _, l := range list(leagues) {
				code, err := model.ParseLeagueCode(l)
				if err != nil {
					return model.Invalidf("leagues", l, "must be 2 to 4 letters or digits")
				}
				w.Leagues = append(w.Leagues, code)
			}
			if err := w.ValidateDraft(); err != nil {
				return err
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			secret, ch, err := ed.AddWebhook(ctx, w)
			if err != nil {
				return err
			}
			// The change lists every field; the secret is printed once,
			// below, on its own line.
			for _, line := range strings.Split(ch.String(), "\n") {
				if !strings.HasPrefix(line, "  secret:") {
					fmt.Fprintln(e.stdout, line)
				}
			}
			if ch.DryRun {
				fmt.Fprintln(e.stdout, "dry run: no secret issued")
				return nil
			}
			fmt.Fprintf(e.stdout, "secret: %s\n(shown once: give it to the client, whose receiver verifies the webhook-signature header with it)\n", secret)
			warnNotPublic(e, w.URL)
			return nil
		}}
}

// warnNotPublic warns, on stderr, when the webhook's host is an address
// the replicas refuse unless their --webhook-allow names it: the editor
// learns it now, not from `webhook show` once verification has failed.
func warnNotPublic(e *env, raw string) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return
	}
	if why := netguard.NotPublicHost(u.Hostname()); why != "" {
		fmt.Fprintf(e.stderr, "warning: %s is not a public address (%s): replicas refuse it unless they run with --webhook-allow naming it, "+
			"such as FD_WEBHOOK_ALLOW=%s (make run passes FD_WEBHOOK_ALLOW on)\n", u.Hostname(), why, allowFor(u.Hostname()))
	}
}

// allowFor is the --webhook-allow value that admits host.
func allowFor(host string) string {
	if addr, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()).String()
	}
	return "127.0.0.1/32,::1/128"
}

// list splits a comma-separated flag value.
func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func webhookList() command {
	return command{name: "webhook list", args: "", summary: "list webhooks with their state", example: "ingest webhook list",
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			ed, states, err := e.webhooks(ctx)
			if err != nil {
				return err
			}
			hooks, err := ed.Webhooks(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tCLIENT\tURL\tSTATE")
			for _, h := range hooks {
				state, err := stateOf(ctx, states, h)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", h.Name, h.Client, h.URL, state.Status)
			}
			return w.Flush()
		}}
}

// webhooks connects and opens the webhook states.
func (e *env) webhooks(ctx context.Context) (*editor.Editor, *webhook.States, error) {
	ed, err := e.editor(ctx)
	if err != nil {
		return nil, nil, err
	}
	states, err := webhook.ReadStates(ctx, ed.Store.Conn())
	return ed, states, err
}

// stateOf is a webhook's state as the API replicas record it; a removed
// webhook is "removed", one no replica has seen yet is pending.
func stateOf(ctx context.Context, states *webhook.States, h model.Webhook) (webhook.State, error) {
	if h.Removed {
		return webhook.State{Status: "removed"}, nil
	}
	st, found, err := states.Get(ctx, h.Name, h.Created)
	if !found {
		st = webhook.State{Status: webhook.Pending}
	}
	return st, err
}

func webhookShow() command {
	return command{name: "webhook show", args: "NAME",
		summary: "show a webhook: what it asks for, its state, its last deliveries and failures",
		example: "ingest webhook show acme-live",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one webhook NAME")
			}
			ed, states, err := e.webhooks(ctx)
			if err != nil {
				return err
			}
			h, err := ed.Webhook(ctx, pos[0])
			if err != nil {
				return err
			}
			st, err := stateOf(ctx, states, h)
			if err != nil {
				return err
			}
			all := func(v []string) string {
				if len(v) == 0 {
					return "all"
				}
				return strings.Join(v, ",")
			}
			var comps, leagues []string
			for _, c := range h.Competitions {
				comps = append(comps, fmt.Sprint(c))
			}
			for _, l := range h.Leagues {
				leagues = append(leagues, string(l))
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			version := h.Version
			if version == "" {
				version = "v1"
			}
			fmt.Fprintf(w, "name:\t%s\nclient:\t%s\nurl:\t%s\nevents:\t%s\ncompetitions:\t%s\nleagues:\t%s\nversion:\t%s\ncreated:\t%s\n",
				h.Name, h.Client, h.URL, all(h.Events), all(comps), all(leagues), version, h.Created.Format(time.RFC3339))
			fmt.Fprintf(w, "state:\t%s", st.Status)
			if !st.Since.IsZero() {
				fmt.Fprintf(w, " since %s", st.Since.UTC().Format(time.RFC3339))
			}
			fmt.Fprintln(w)
			if st.Verification != "" {
				fmt.Fprintf(w, "verification:\t%s\n", st.Verification)
			}
			circuit := "closed"
			if st.Circuit == webhook.CircuitOpen {
				circuit = "open: parked after failed attempts in a row, until " + st.ParkedUntil.UTC().Format(time.RFC3339) + ", when one attempt probes the receiver"
			}
			fmt.Fprintf(w, "circuit:\t%s\n", circuit)
			fmt.Fprintf(w, "delivered:\t%d\nfailed attempts:\t%d\ngiven up:\t%d\ndropped unverified:\t%d\nput off while parked:\t%d\n",
				st.Delivered, st.Failed, st.GaveUp, st.Dropped, st.Parked)
			if err := w.Flush(); err != nil {
				return err
			}
			if len(st.Last) == 0 {
				return nil
			}
			fmt.Fprintln(e.stdout, "\nlast attempts:")
			w = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "TIME\tID\tATTEMPT\tSTATUS\tSECONDS\tERROR")
			for _, a := range st.Last {
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%s\n", a.Time.Format(time.RFC3339), a.ID, a.Attempt, a.Status, a.Duration, a.Error)
			}
			return w.Flush()
		}}
}

func webhookRemove() command {
	return command{name: "webhook remove", args: "NAME", summary: "remove a webhook: nothing more is sent to it", example: "ingest webhook remove acme-live",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one webhook NAME")
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.RemoveWebhook(ctx, pos[0]) })
		}}
}
