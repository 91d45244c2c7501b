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

	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/settings"
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

// exitCode is the one place that maps an error to an exit status: usage
// errors and the model.Error codes.
func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return exitInvalid
	}
	switch model.ErrorCode(err) {
	case "":
		return exitOK
	case model.Invalid:
		return exitInvalid
	case model.NotFound:
		return exitNotFound
	case model.Conflict:
		return exitConflict
	}
	return exitFailure
}

// env is what every command gets: its editor, connected to the stream on
// first use, so that parsing and help never touch the network.
type env struct {
	global  globals
	getenv  func(string) string
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	command string
	// terminal is stderr when it is a terminal, for progress bars.
	terminal io.Writer
	ed       *editor.Editor
}

// globals are the flags every command takes, before or after its name.
type globals struct {
	nats, editor              string
	natsCA, natsCert, natsKey string
	patience                  time.Duration
	dryRun                    bool
}

// settings are the global flags; --editor defaults to the user's name.
func (g *globals) settings(getenv func(string) string) settings.Table {
	return append(settings.NATS("", "ingest", &g.nats, &g.natsCA, &g.natsCert, &g.natsKey), settings.Table{
		{Name: "patience", Env: "FD_PATIENCE", Arg: "D", Usage: "how long to keep trying while the NATS cluster fails over", Value: settings.Duration(&g.patience, events.DefaultPatience, time.Nanosecond, 0)},
		{Name: "editor", Env: "FD_EDITOR", Arg: "NAME", Usage: "who makes the change, recorded with it (default: $USER)", Value: settings.Text(&g.editor, or(getenv("USER"), "unknown"))},
		{Name: "dry-run", Usage: "validate and show the change without publishing", Value: settings.Bool(&g.dryRun)},
	}...)
}

// noEnv is an empty environment, for listing flags.
func noEnv(string) string { return "" }

// dial is how the command reaches NATS. The connection's asynchronous
// errors are not printed: a refused subject comes back as the command's
// one line of error (events.Explain), and a command either succeeds or
// fails within --patience.
func (e *env) dial() events.Dial {
	return events.Dial{URL: e.global.nats, Name: "ingest", CA: e.global.natsCA, Cert: e.global.natsCert, Key: e.global.natsKey}
}

// editor connects to the stream and returns the command's editor. While
// the cluster fails over (a leader election, a node restarting) it keeps
// trying for --patience; a change retried carries the same identity, so
// it can never apply twice (pkg/events, Bulk).
func (e *env) editor(ctx context.Context) (*editor.Editor, error) {
	if e.ed != nil {
		return e.ed, nil
	}
	cctx, cancel := context.WithTimeout(ctx, e.global.patience+10*time.Second)
	defer cancel()
	store, err := events.Connect(cctx, e.dial(), events.StreamConfig{Patience: e.global.patience})
	if err != nil {
		return nil, err
	}
	e.ed = &editor.Editor{Store: store, Meta: events.Meta{Editor: e.global.editor, Source: "ingest " + e.command}, DryRun: e.global.dryRun}
	return e.ed, nil
}

func (e *env) close() {
	if e.ed != nil {
		e.ed.Store.Close()
	}
}

type command struct {
	name    string // "competition put"
	args    string // synopsis of what follows the name
	summary string
	example string
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet)
	// run does the work with the positional arguments.
	run func(ctx context.Context, e *env, args []string) error
}

// usageError is bad command-line syntax: exit 2 and a hint.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func usage(w io.Writer, global settings.Table) {
	fmt.Fprintln(w, "usage: ingest [--nats URL] [--editor NAME] [--dry-run] COMMAND [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n`ingest help COMMAND` or `ingest COMMAND --help` shows a command's flags and an example.")
	fmt.Fprintln(w, "\nglobal flags, before or after the command, each with the environment variable it may be given in instead:")
	_ = global.Help(w)
	fmt.Fprintln(w, "\n--version prints the version; `ingest completion bash|zsh` prints a shell completion script.")
	fmt.Fprintln(w, "exit status: 0 ok, 1 failure (stream unreachable), 2 invalid input, 3 not found, 4 conflict")
}

// commandUsage prints a command's synopsis, flags with their defaults, and
// an example.
func commandUsage(w io.Writer, c command, fs *flag.FlagSet, globalTable settings.Table) {
	fmt.Fprintf(w, "usage: ingest %s %s\n\n%s\n", c.name, c.args, c.summary)
	global := map[string]bool{}
	var globalNames []string
	for _, s := range globalTable {
		global[s.Name] = true
		globalNames = append(globalNames, strings.TrimSpace("--"+s.Name+" "+s.Arg))
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if global[f.Name] {
			return
		}
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		name, usage := flag.UnquoteUsage(f)
		if s, ok := settings.Lookup(f); ok {
			name = s.Arg
		} else if name == "value" || name == "" {
			name = "VALUE"
			if isBool(f) {
				name = ""
			}
		}
		fmt.Fprintf(w, "  %s\n      %s", strings.TrimSpace("--"+f.Name+" "+strings.ToUpper(name)), usage)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
	fmt.Fprintf(w, "\nglobal flags, before or after the command: %s (see ingest --help)\n", strings.Join(globalNames, ", "))
	fmt.Fprintf(w, "\nexample:\n  %s\n", c.example)
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, terminal: terminalOf(stderr)}
	defer e.close()
	top := flag.NewFlagSet("ingest", flag.ContinueOnError)
	globalTable := e.global.settings(getenv)
	var version bool
	settings.Table{{Name: "version", Usage: "print the version and exit", Value: settings.Bool(&version)}}.Register(top)
	err := globalTable.Load(top, getenv)
	if err == nil {
		err = settings.Parse(top, args)
	}
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout, globalTable)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "ingest: %v (see ingest --help)\n", err)
		return exitInvalid
	}
	if version {
		fmt.Fprintf(stdout, "ingest %s\n", buildinfo.Read())
		return exitOK
	}
	rest := top.Args()
	if len(rest) == 0 {
		usage(stderr, globalTable)
		return exitInvalid
	}
	if rest[0] == "help" {
		if len(rest) == 1 {
			usage(stdout, globalTable)
			return exitOK
		}
		rest = append(rest[1:], "--help")
	}
	cmd, cmdArgs, ok := lookup(rest)
	if !ok && len(rest) <= 2 && (len(rest) == 1 || rest[1] == "--help" || rest[1] == "-h") && group(stdout, rest[0]) {
		return exitOK
	}
	if !ok {
		asked := strings.Join(rest[:min(2, len(rest))], " ")
		if near := suggest(rest); near != "" {
			fmt.Fprintf(stderr, "ingest: unknown command %q: did you mean %q? (see ingest --help)\n", asked, near)
		} else {
			fmt.Fprintf(stderr, "ingest: unknown command %q (see ingest --help)\n", asked)
		}
		return exitInvalid
	}
	e.command = cmd.name
	// Global flags given before the command name stay set unless given
	// again after it.
	before := e.global
	fs := flag.NewFlagSet("ingest "+cmd.name, flag.ContinueOnError)
	// The environment was read and checked with the flags before the
	// command name.
	e.global.settings(getenv).Register(fs)
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	pos, err := parse(fs, cmdArgs)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(stdout, cmd, fs, globalTable)
		return exitOK
	}
	if err == nil {
		e.global = mergeGlobals(before, e.global, fs)
		err = cmd.run(ctx, e, pos)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ingest: %s: %s\n", cmd.name, strings.ReplaceAll(err.Error(), "\n", "; "))
		return exitCode(err)
	}
	return exitOK
}

// mergeGlobals keeps what was given before the command name unless it was
// given again after it.
func mergeGlobals(before, after globals, fs *flag.FlagSet) globals {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	keepUnset(set, "nats", &after.nats, before.nats)
	keepUnset(set, "nats-ca", &after.natsCA, before.natsCA)
	keepUnset(set, "nats-cert", &after.natsCert, before.natsCert)
	keepUnset(set, "nats-key", &after.natsKey, before.natsKey)
	keepUnset(set, "patience", &after.patience, before.patience)
	keepUnset(set, "editor", &after.editor, before.editor)
	after.dryRun = after.dryRun || before.dryRun
	return after
}

// keepUnset sets *after to before unless the flag name was set.
func keepUnset[T any](set map[string]bool, name string, after *T, before T) {
	if !set[name] {
		*after = before
	}
}

// suggest is the command closest to what was typed (a typo or two away,
// in one or two words), or "".
func suggest(args []string) string {
	best, bestDist := "", 3
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) < len(words) {
			continue
		}
		if d := editDistance(strings.Join(args[:len(words)], " "), c.name); d < bestDist {
			best, bestDist = c.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
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

// parse parses args, allowing flags after positional arguments, and
// returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := settings.Parse(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v (see ingest help %s)", err, strings.TrimPrefix(fs.Name(), "ingest "))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
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

func (e *env) print(ch editor.Change) {
	fmt.Fprintln(e.stdout, ch.String())
}

// edit connects, makes one edit and prints what it changed.
func (e *env) edit(ctx context.Context, do func(ed *editor.Editor) (editor.Change, error)) error {
	ed, err := e.editor(ctx)
	if err != nil {
		return err
	}
	ch, err := do(ed)
	if err == nil {
		e.print(ch)
	}
	return err
}

// putCommand is a `KIND put` command: an optional --id (none creates the
// entity), the entity's table of flags, and the editor's put. prepare, if
// not nil, checks the flags and returns a change to apply before them.
func putCommand[T any](c command, table fields[T], extra func(fs *flag.FlagSet),
	prepare func(e *env, id int, g given) (func(*T) error, error),
	put func(ctx context.Context, ed *editor.Editor, id int, change func(*T) error) (editor.Change, error)) command {
	g := given{}
	var id string
	c.flags = func(fs *flag.FlagSet) {
		fs.StringVar(&id, "id", "", "id of the one to change (omit to create one with a new id)")
		if extra != nil {
			extra(fs)
		}
		table.register(fs, g)
	}
	c.run = func(ctx context.Context, e *env, pos []string) error {
		if err := noArgs(pos); err != nil {
			return err
		}
		n, err := optionalID("id", id)
		if err != nil {
			return err
		}
		first := func(*T) error { return nil }
		if prepare != nil {
			if first, err = prepare(e, n, g); err != nil {
				return err
			}
		}
		return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) {
			return put(ctx, ed, n, func(v *T) error {
				if err := first(v); err != nil {
					return err
				}
				return table.apply(g, v)
			})
		})
	}
	return c
}

// optionalID parses an optional --id flag: 0 when not given.
func optionalID(field, v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	return parseID(field, v)
}

// noArgs refuses positional arguments.
func noArgs(pos []string) error {
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	return nil
}
