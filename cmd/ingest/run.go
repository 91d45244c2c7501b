package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Exit codes, so scripts can tell a refused edit from a broken connection.
const (
	exitOK       = 0
	exitFailure  = 1 // stream unreachable, internal error
	exitInvalid  = 2 // bad input: usage, validation
	exitNotFound = 3
	exitConflict = 4
)

// env is what every command gets.
type env struct {
	ed     *editor.Editor
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// terminal is stderr when it is a terminal, for progress bars.
	terminal io.Writer
}

type command struct {
	name    string // "competition put"
	args    string // synopsis of arguments after the name
	summary string
	run     func(ctx context.Context, e *env, args []string) error
	// offline commands do not need the stream.
	offline bool
}

// usageError is bad command-line syntax: exit 2 and a hint.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func commands() []command {
	return []command{
		{"league put", "CODE --name N --country C --zone TZ", "add or change a league code beyond the spec's appendix", leaguePut, false},
		{"competition put", "[--id N] --league CODE --year YYYY --caption TEXT [flags]", "create or change a competition", competitionPut, false},
		{"team put", "[--id N] --name NAME [flags]", "create or change a team", teamPut, false},
		{"team alias", "--team ID NAME", "map another spelling of a name to a team (used by importers)", teamAlias, false},
		{"squad put", "--team ID FILE.csv|FILE.json", "replace a team's squad", squadPut, false},
		{"fixture put", "[--id N] --competition ID --matchday N --home ID --away ID --kickoff TIME [flags]", "create or change a fixture", fixturePut, false},
		{"result", "FIXTURE --score H-A [--half-time H-A] [--extra-time H-A] [--penalties H-A] [--status S] [--awarded SIDE]", "record a (live or final) result", result, false},
		{"status", "FIXTURE STATUS [--kickoff TIME]", "move a fixture to a status: schedule, time, kick-off, finish, postpone, cancel", status, false},
		{"deduct", "--competition ID --team ID --points N --reason TEXT", "deduct N points (negative N adds); --id A --points 0 withdraws", deduct, false},
		{"tiebreak", "--competition ID --order ID,ID,... --reason TEXT", "order teams level after every tie-breaker", tiebreak, false},
		{"tables", "--competition ID [--rules FILE.json|-] [--disciplinary TEAM:POINTS,...] [--coefficients ID,ID,...] [--source TEXT]", "set table rules, disciplinary points and the coefficient order", tables, false},
		{"show", "KIND ID", "print the current state of an entity", show, false},
		{"history", "KIND ID", "print every stored revision of an entity: who, when, what changed", history, false},
		{"client add", "NAME [--tier registered|donating] [--per-minute N] [--per-day N]", "register an API client and print its token once", clientAdd, false},
		{"client list", "", "list API clients", clientList, false},
		{"client revoke", "NAME", "revoke a client's token", clientRevoke, false},
		{"import openfootball", "[--league CODE] [--season YYYY] FILE...", "import openfootball JSON files", importOpenFootball, false},
		{"import engsoccerdata", "[--from YYYY] [--to YYYY] DIR|FILE...", "import engsoccerdata CSV files (the data-raw folder, with its deductions)", importEngSoccer, false},
		{"generate", "[--seed N] [--fixtures N | --leagues N --seasons N] [--live N] [--extra-edits N]", "publish a synthetic world, deterministic from the seed (benchmarks, demos)", generateWorld, false},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ingest [--nats URL] [--editor NAME] [--dry-run] COMMAND [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-20s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nglobal flags (env): --nats (FD_NATS_URL, default nats://127.0.0.1:4222), --editor (FD_EDITOR, default $USER)")
	fmt.Fprintln(w, "exit status: 0 ok, 1 failure, 2 invalid input, 3 not found, 4 conflict")
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	global := flag.NewFlagSet("ingest", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	natsURL := global.String("nats", or(getenv("FD_NATS_URL"), "nats://127.0.0.1:4222"), "NATS server URL")
	editorName := global.String("editor", or(getenv("FD_EDITOR"), getenv("USER"), "unknown"), "who makes the change")
	dryRun := global.Bool("dry-run", false, "validate and show the change without publishing")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "ingest: %v (see ingest --help)\n", err)
		return exitInvalid
	}
	rest := global.Args()
	if len(rest) == 0 || rest[0] == "help" {
		usage(stdout)
		if len(rest) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	cmd, cmdArgs, ok := lookup(rest)
	if !ok {
		fmt.Fprintf(stderr, "ingest: unknown command %q (see ingest --help)\n", strings.Join(rest[:min(2, len(rest))], " "))
		return exitInvalid
	}
	e := &env{ed: &editor.Editor{Meta: events.Meta{Editor: *editorName, Source: "ingest " + cmd.name}, DryRun: *dryRun},
		stdin: stdin, stdout: stdout, stderr: stderr, terminal: terminalOf(stderr)}
	if !cmd.offline {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		store, err := events.Connect(cctx, *natsURL, "ingest", events.StreamConfig{})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "ingest: %s: %v\n", cmd.name, err)
			return exitFailure
		}
		defer store.Close()
		e.ed.Store = store
	}
	if err := cmd.run(ctx, e, cmdArgs); err != nil {
		return report(stderr, cmd.name, err)
	}
	return exitOK
}

func lookup(args []string) (command, []string, bool) {
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			return c, args[len(words):], true
		}
	}
	return command{}, nil, false
}

// report prints err on one line and returns the exit code for it.
func report(w io.Writer, name string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(w, "ingest: %s: %s\n", name, msg)
	var ue usageError
	if errors.As(err, &ue) {
		return exitInvalid
	}
	switch model.ErrorCode(err) {
	case model.Invalid:
		return exitInvalid
	case model.NotFound:
		return exitNotFound
	case model.Conflict:
		return exitConflict
	}
	return exitFailure
}

func or(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func terminalOf(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return w
}

// flags returns a flag set for a command that also accepts --dry-run, so
// the flag works before or after the command name.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&e.ed.DryRun, "dry-run", e.ed.DryRun, "validate and show the change without publishing")
	return fs
}

// parse parses args, allowing flags after positional arguments, and returns
// the positional ones and the names of the flags that were set.
func parse(fs *flag.FlagSet, args []string) ([]string, map[string]bool, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return pos, set, nil
}

func (e *env) print(ch editor.Change) {
	fmt.Fprintln(e.stdout, ch.String())
}
