package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// subjectFor maps `KIND ID` as an editor types it to a subject. Fixtures
// and adjustments are found by their own id, whatever their competition.
func subjectFor(kind events.Kind, id string) (string, error) {
	switch kind {
	case events.KindTeamName:
		return events.TeamNameSubject(id), nil
	case events.KindClient, events.KindWebhook, events.KindFeed, events.KindLeague:
		return events.Subject(kind, id), nil
	case events.KindCompetitionKey:
		league, year, ok := cutKey(id)
		if !ok {
			return "", model.Invalidf("competitionkey", id, "must be LEAGUE/YEAR, e.g. PL/2025")
		}
		return events.Subject(kind, league, year), nil
	}
	n, err := parseID(string(kind)+" id", id)
	if err != nil {
		return "", err
	}
	if kind == events.KindFixture || kind == events.KindAdjustment {
		return events.Subject(kind, "*", strconv.Itoa(n)), nil
	}
	return events.Subject(kind, strconv.Itoa(n)), nil
}

func cutKey(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], i > 0 && i < len(s)-1
		}
	}
	return "", "", false
}

// body returns the entity state of a message body, indented.
func body(data []byte) string {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	var out bytes.Buffer
	if json.Unmarshal(data, &env) != nil || json.Indent(&out, env.Data, "", "  ") != nil {
		return string(data)
	}
	return out.String()
}

// current reads `KIND ID` and loads the entity's last revision.
func (e *env) current(ctx context.Context, pos []string) (events.Revision, error) {
	if len(pos) != 2 {
		return events.Revision{}, usagef("want KIND ID, e.g. `fixture 42`")
	}
	kind, err := events.ParseKind(pos[0])
	if err != nil {
		return events.Revision{}, err
	}
	subject, err := subjectFor(kind, pos[1])
	if err != nil {
		return events.Revision{}, err
	}
	ed, err := e.editor(ctx)
	if err != nil {
		return events.Revision{}, err
	}
	return ed.Store.Get(ctx, subject)
}

func show() command {
	return command{name: "show", args: "KIND ID",
		summary: "print the current state of an entity, who changed it last, when and from where",
		example: "ingest show fixture 4242\n  ingest show teamname \"Arsenal\"",
		run: func(ctx context.Context, e *env, pos []string) error {
			rev, err := e.current(ctx, pos)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "# %s revision %d, %s by %s (%s)\n%s\n", rev.Subject, rev.Seq,
				rev.Time.UTC().Format(time.RFC3339), or(rev.Editor, "?"), or(rev.Source, "?"), body(hideSecrets(rev.Data)))
			return nil
		}}
}

// signingSecret matches a webhook's signing secret in a stored message.
var signingSecret = regexp.MustCompile(`"secret":\s*"whsec_[^"]*"`)

// hideSecrets blanks the signing secrets in a stored message: webhook add
// shows a secret once, and show or history must not show it again.
func hideSecrets(data []byte) []byte {
	return signingSecret.ReplaceAll(data, []byte(`"secret":"whsec_(hidden)"`))
}

func history() command {
	return command{name: "history", args: "KIND ID",
		summary: "print every stored revision of an entity: who, when, from where, what changed",
		example: "ingest history fixture 4242",
		run: func(ctx context.Context, e *env, pos []string) error {
			rev, err := e.current(ctx, pos)
			if err != nil {
				return err
			}
			revs, err := e.ed.Store.History(ctx, rev.Subject)
			if err != nil {
				return err
			}
			var prev []byte
			for _, r := range revs {
				fmt.Fprintf(e.stdout, "revision %d  %s  %s  (%s)\n", r.Seq, r.Time.UTC().Format(time.RFC3339), or(r.Editor, "?"), or(r.Source, "?"))
				data := hideSecrets(r.Data)
				lines, err := editor.Diff(prev, data)
				if err != nil {
					return err
				}
				for _, l := range lines {
					fmt.Fprintf(e.stdout, "  %s\n", l)
				}
				prev = data
			}
			return nil
		}}
}

func clientAdd() command {
	var tier string
	var perMinute, perDay int
	return command{name: "client add", args: "NAME [--tier registered|donating] [--per-minute N] [--per-day N]",
		summary: "register an API client and print its token once (a revoked client's name may be given again)",
		example: "ingest client add acme --tier donating --per-minute 120",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&tier, "tier", "registered", "registered or donating")
			fs.IntVar(&perMinute, "per-minute", model.DefaultPerMinute, "requests per minute")
			fs.IntVar(&perDay, "per-day", model.DefaultPerDay, "requests per day (0: no daily cap)")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one client NAME")
			}
			t, err := model.ParseTier("tier", tier)
			if err != nil {
				return err
			}
			c := model.Client{Name: pos[0], Tier: t, PerMinute: perMinute, PerDay: perDay, TokenHash: model.HashToken("check")}
			if err := c.Validate(); err != nil {
				return err
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			token, ch, err := ed.AddClient(ctx, c)
			if err != nil {
				return err
			}
			e.print(ch)
			e.printToken(ch, token)
			return nil
		}}
}

// printToken shows a new token, once.
func (e *env) printToken(ch editor.Change, token string) {
	if ch.DryRun {
		fmt.Fprintln(e.stdout, "dry run: no token issued")
		return
	}
	fmt.Fprintf(e.stdout, "token: %s\n(shown once: only its hash is stored)\n", token)
}

func clientList() command {
	return command{name: "client list", args: "", summary: "list API clients", example: "ingest client list",
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			clients, err := ed.Clients(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tTIER\tPER MINUTE\tPER DAY\tSTATE")
			for _, c := range clients {
				state := "active"
				if c.Revoked {
					state = "revoked"
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\n", c.Name, c.Tier, c.PerMinute, c.PerDay, state)
			}
			return w.Flush()
		}}
}

func clientRevoke() command {
	return command{name: "client revoke", args: "NAME", summary: "revoke a client's token for good", example: "ingest client revoke acme",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one client NAME")
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.RevokeClient(ctx, pos[0]) })
		}}
}

func clientRotate() command {
	return command{name: "client rotate", args: "NAME",
		summary: "give a client a new token, shown once; the old one stops working",
		example: "ingest client rotate acme",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one client NAME")
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			token, ch, err := ed.RotateClient(ctx, pos[0])
			if err != nil {
				return err
			}
			e.print(ch)
			e.printToken(ch, token)
			return nil
		}}
}
