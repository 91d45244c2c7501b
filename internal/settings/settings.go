// Package settings declares a command's settings once each: flag name,
// FD_* environment variable, help group, and a typed value holding its
// default and bounds. From that one table a command registers its flags,
// applies the environment, refuses a bad value in one line naming the
// flag, the value and the rule, and writes its help. Libraries own the
// defaults (as exported constants) and the tables refer to them, so that
// each default is written once; the NATS connection's settings, which
// both commands take, are declared here once (NATS).
package settings

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
)

// Setting is one flag: its group in help, its name (without --), its
// environment variable ("" for none), the name of its argument in help
// ("" for a bool), what it does, and its typed value.
type Setting struct {
	Group, Name, Env, Arg, Usage string
	Value                        Value
	// Redact, if set, masks a value in errors (a password in a URL).
	Redact func(string) string
}

// Value is a flag.Value that knows its default, written as Set takes it
// ("" for none).
type Value interface {
	flag.Value
	Default() string
}

// Table is a command's settings, in the order of its help.
type Table []Setting

// entry is what the table registers on a flag set: the value, and the
// setting it belongs to, for help (Lookup).
type entry struct {
	Value
	s *Setting
}

// IsBoolFlag lets a bool setting be given alone (--access-log).
func (e entry) IsBoolFlag() bool {
	b, ok := e.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Register sets every value to its default and adds the flags to fs. A
// default its own value refuses is a mistake in the table, as a flag
// defined twice is: Register panics, as fs.Var does then, and every
// command's help test meets it first.
func (t Table) Register(fs *flag.FlagSet) {
	for i := range t {
		s := &t[i]
		if err := s.Value.Set(s.Value.Default()); err != nil {
			panic(fmt.Sprintf("settings: --%s: default %q: %v", s.Name, s.Value.Default(), err))
		}
		fs.Var(entry{s.Value, s}, s.Name, s.Usage)
	}
}

// Environ sets each value whose environment variable is set, as if its
// flag had been given before the command line's.
func (t Table) Environ(getenv func(string) string) error {
	for _, s := range t {
		if s.Env == "" {
			continue
		}
		if v := getenv(s.Env); v != "" {
			if err := s.Value.Set(v); err != nil {
				return fmt.Errorf("--%s %q (from %s): %w", s.Name, s.redact(v), s.Env, err)
			}
		}
	}
	return nil
}

// Load registers the table on fs and applies the environment.
func (t Table) Load(fs *flag.FlagSet, getenv func(string) string) error {
	t.Register(fs)
	return t.Environ(getenv)
}

func (s Setting) redact(v string) string {
	if s.Redact != nil {
		return s.Redact(v)
	}
	return v
}

// flagError is the flag package's wording of a value it refused.
var flagError = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-(\S+): (.*)$`)

// Parse parses args on fs, a flag set registered by Register (and maybe
// other flags). A refused value or an unknown flag comes back in the
// project's one wording: `--name "value": rule`, `unknown flag --name`.
// flag.ErrHelp is returned as is.
func Parse(fs *flag.FlagSet, args []string) error {
	// The flag package prints the usage on every error; help is the
	// caller's to print, and only when asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	if m := flagError.FindStringSubmatch(err.Error()); m != nil {
		v := m[1]
		if f := fs.Lookup(m[2]); f != nil {
			if e, ok := f.Value.(entry); ok {
				v = e.s.redact(v)
			}
		}
		return fmt.Errorf("--%s %q: %s", m[2], v, m[3])
	}
	msg := err.Error()
	for _, p := range [][2]string{{"flag provided but not defined: -", "unknown flag --"}, {"flag needs an argument: -", "flag needs an argument: --"}} {
		msg = strings.Replace(msg, p[0], p[1], 1)
	}
	return errors.New(msg)
}

// Lookup returns the setting behind a flag registered by Register.
func Lookup(f *flag.Flag) (Setting, bool) {
	if e, ok := f.Value.(entry); ok {
		return *e.s, true
	}
	return Setting{}, false
}

// Help writes the table grouped, one line a flag with its environment
// variable, its default ("-" for none) and what it does.
func (t Table) Help(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	group := ""
	for _, s := range t {
		if s.Group != group {
			group = s.Group
			fmt.Fprintf(tw, "\n%s\n", group)
		}
		name := "--" + s.Name
		if s.Arg != "" {
			name += " " + s.Arg
		}
		def := s.Value.Default()
		if def == "" || def == "false" {
			def = "-"
		}
		env := s.Env
		if env == "" {
			env = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, env, def, s.Usage)
	}
	return tw.Flush()
}
