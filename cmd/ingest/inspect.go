package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// subjectFor maps `KIND ID` as an editor types it to a subject. Fixtures
// and adjustments are found by their own id, whatever their competition.
func subjectFor(kind events.Kind, id string) (string, error) {
	switch kind {
	case events.KindTeamName:
		return events.TeamNameSubject(id), nil
	case events.KindClient, events.KindLeague:
		return events.Subject(kind, id), nil
	}
	if n, err := strconv.Atoi(id); err != nil || n <= 0 {
		return "", model.Invalidf(string(kind)+" id", id, "must be a positive integer")
	}
	if kind == events.KindFixture || kind == events.KindAdjustment {
		return events.Subject(kind, "*", id), nil
	}
	return events.Subject(kind, id), nil
}

func kindAndID(args []string) (string, error) {
	if len(args) != 2 {
		return "", usagef("want KIND ID, e.g. `fixture 42`")
	}
	kind, err := events.ParseKind(args[0])
	if err != nil {
		return "", err
	}
	return subjectFor(kind, args[1])
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

// current reads `KIND ID` from args and loads the entity's last revision.
func (e *env) current(ctx context.Context, name string, args []string) (events.Revision, error) {
	pos, _, err := parse(e.flags(name), args)
	if err != nil {
		return events.Revision{}, err
	}
	subject, err := kindAndID(pos)
	if err != nil {
		return events.Revision{}, err
	}
	return e.ed.Store.Get(ctx, subject)
}

func show(ctx context.Context, e *env, args []string) error {
	rev, err := e.current(ctx, "show", args)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "# %s revision %d, %s by %s (%s)\n%s\n", rev.Subject, rev.Seq,
		rev.Time.UTC().Format(time.RFC3339), or(rev.Editor, "?"), or(rev.Source, "?"), body(rev.Data))
	return nil
}

func history(ctx context.Context, e *env, args []string) error {
	rev, err := e.current(ctx, "history", args)
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
		lines, err := editor.Diff(prev, r.Data)
		if err != nil {
			return err
		}
		for _, l := range lines {
			fmt.Fprintf(e.stdout, "  %s\n", l)
		}
		prev = r.Data
	}
	return nil
}

func clientAdd(ctx context.Context, e *env, args []string) error {
	fs := e.flags("client add")
	tier := fs.String("tier", "registered", "registered or donating")
	perMinute := fs.Int("per-minute", model.DefaultPerMinute, "requests per minute")
	perDay := fs.Int("per-day", model.DefaultPerDay, "requests per day (0: no daily cap)")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one client NAME")
	}
	t, err := model.ParseTier("tier", *tier)
	if err != nil {
		return err
	}
	token, ch, err := e.ed.AddClient(ctx, model.Client{Name: pos[0], Tier: t, PerMinute: *perMinute, PerDay: *perDay})
	if err != nil {
		return err
	}
	e.print(ch)
	if e.ed.DryRun {
		fmt.Fprintln(e.stdout, "dry run: no token issued")
		return nil
	}
	fmt.Fprintf(e.stdout, "token: %s\n(shown once: only its hash is stored)\n", token)
	return nil
}

func clientList(ctx context.Context, e *env, args []string) error {
	if _, _, err := parse(e.flags("client list"), args); err != nil {
		return err
	}
	clients, err := e.ed.Clients(ctx)
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
}

func clientRevoke(ctx context.Context, e *env, args []string) error {
	pos, _, err := parse(e.flags("client revoke"), args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one client NAME")
	}
	ch, err := e.ed.RevokeClient(ctx, pos[0])
	if err == nil {
		e.print(ch)
	}
	return err
}

func importOpenFootball(ctx context.Context, e *env, args []string) error {
	fs := e.flags("import openfootball")
	league := fs.String("league", "", "league code (default: from the file name)")
	season := fs.Int("season", 0, "season start year (default: from the folder name)")
	files, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("want one or more FILEs")
	}
	var opts importer.Options
	if set["league"] {
		if opts.League, err = model.ParseLeagueCode(*league); err != nil {
			return err
		}
	}
	opts.Season = *season
	im := importer.New(e.ed, e.terminal)
	for _, f := range files {
		// A file refused as invalid is listed in the summary; anything
		// else (the stream gone) stops the import.
		if err := im.OpenFootball(ctx, f, opts); err != nil && model.ErrorCode(err) != model.Invalid {
			im.Summary.Print(e.stdout, e.ed.DryRun)
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	im.Summary.Print(e.stdout, e.ed.DryRun)
	if len(im.Summary.Rejected) == 1 {
		r := im.Summary.Rejected[0]
		return &model.Error{Code: model.Invalid, Message: fmt.Sprintf("%s: %s", r.File, r.Reason)}
	}
	if len(im.Summary.Rejected) > 0 {
		return model.Invalidf("import", "", "%d rejection(s) in %d file(s), listed above; everything else was imported", len(im.Summary.Rejected), countFiles(im.Summary.Rejected))
	}
	return nil
}

func countFiles(rs []importer.Rejection) int {
	files := map[string]bool{}
	for _, r := range rs {
		files[r.File] = true
	}
	return len(files)
}
