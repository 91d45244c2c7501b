package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// offline runs ingest with a NATS address nobody listens on: a command
// that tried to connect would fail.
func offline(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	env := map[string]string{"FD_NATS_URL": "nats://127.0.0.1:1"}
	code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestEveryCommandHasHelp: `COMMAND --help` and `help COMMAND` print the
// command's usage, flags with defaults, and an example, exit 0, and touch
// no network.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands() {
		words := strings.Fields(c.name)
		for _, args := range [][]string{append(words, "--help"), append([]string{"help"}, words...), append(words, "-h")} {
			code, out, errOut := offline(args...)
			if code != exitOK || errOut != "" {
				t.Errorf("ingest %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
				continue
			}
			for _, want := range []string{"usage: ingest " + c.name, c.summary} {
				if !strings.Contains(out, want) {
					t.Errorf("ingest %s: output lacks %q:\n%s", strings.Join(args, " "), want, out)
				}
			}
			if _, example, _ := strings.Cut(out, "\nexample:\n"); !strings.Contains(example, "ingest "+c.name) {
				t.Errorf("ingest %s: no example of the command:\n%s", strings.Join(args, " "), out)
			}
			if c.flags != nil && !strings.Contains(out, "\nflags:\n  --") {
				t.Errorf("ingest %s: no flags listed:\n%s", strings.Join(args, " "), out)
			}
		}
	}
	// Defaults are shown.
	if _, out, _ := offline("client", "add", "--help"); !strings.Contains(out, "(default 50)") {
		t.Errorf("client add --help does not show the default of --per-minute:\n%s", out)
	}
}

func TestGroupsVersionAndGlobalFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"league"}, exitOK, `(?m)^  league put\s+add or change a league code`},
		{[]string{"league", "--help"}, exitOK, `(?m)^  league put`},
		{[]string{"client"}, exitOK, `(?s)client add.*client list.*client revoke.*client rotate`},
		{[]string{"--version"}, exitOK, `^ingest version \S+, commit \S+, go1\.\d+`},
		{[]string{"--help"}, exitOK, `usage: ingest \[--nats URL\]`},
		{[]string{"help"}, exitOK, `(?m)^  tiebreak\s`},
	}
	for _, tt := range tests {
		code, out, errOut := offline(tt.args...)
		if code != tt.code || !regexp.MustCompile(tt.want).MatchString(out) {
			t.Errorf("ingest %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.want)
		}
	}
	// --nats after the command name is the command's.
	c := newCLI(t)
	code, _, errOut := offline("team", "put", "--name", "Arsenal", "--nats", c.srv.URL(), "--editor", "ann")
	if code != exitOK {
		t.Fatalf("--nats after the command: exit %d, %s", code, errOut)
	}
	if out := c.okf("show team 57"); !strings.Contains(out, "by ann") {
		t.Errorf("--editor after the command not recorded: %s", out)
	}
	// Before the name too, and --dry-run anywhere.
	if code, out, errOut := offline("--nats", c.srv.URL(), "team", "put", "--name", "Chelsea", "--dry-run"); code != exitOK || !strings.Contains(out, "would be created") {
		t.Errorf("globals before the command: exit %d %q %q", code, out, errOut)
	}
}

// TestCompletion sources the bash completion in a real bash and asks it to
// complete commands, subcommands and flags.
func TestCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed for the completion test")
	}
	_, script, _ := offline("completion", "bash")
	complete := func(words ...string) string {
		t.Helper()
		line := `source /dev/stdin; COMP_WORDS=(` + strings.Join(words, " ") + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `; _ingest; echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "-c", line)
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"ingest", "comp"}, "competition completion"},
		{[]string{"ingest", "client", "r"}, "revoke rotate"},
		{[]string{"ingest", "result", "42", "--half"}, "--half-time"},
		{[]string{"ingest", "--nats", "nats://x:1", "team", "put", "--cr"}, "--crest"},
		{[]string{"ingest", "import", "openfootball", "--lea"}, "--league"},
	}
	for _, tt := range tests {
		if got := complete(tt.words...); got != tt.want {
			t.Errorf("complete %q: got %q, want %q", strings.Join(tt.words, " "), got, tt.want)
		}
	}
	if code, out, _ := offline("completion", "zsh"); code != exitOK || !strings.HasPrefix(out, "autoload -U +X bashcompinit") {
		t.Errorf("zsh completion: exit %d %.80q", code, out)
	}
}
