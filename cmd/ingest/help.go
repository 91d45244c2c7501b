package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// group lists the commands of a group word ("league", "client") when a
// user asks for it alone.
func group(w io.Writer, word string) bool {
	var cs []command
	for _, c := range commands() {
		if first, _, _ := strings.Cut(c.name, " "); first == word && c.name != word {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return false
	}
	fmt.Fprintf(w, "ingest %s: one of\n", word)
	for _, c := range cs {
		fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\n`ingest help %s SUBCOMMAND` shows its flags and an example.\n", word)
	return true
}

// flagNames lists a command's flags, globals included, as --name.
func flagNames(c command) []string {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	var g globals
	g.settings(noEnv).Register(fs)
	if c.flags != nil {
		c.flags(fs)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return names
}

// completionScript writes a bash completion of every command and its
// flags; zsh loads it through bashcompinit.
func completionScript(w io.Writer, shell string) error {
	if shell != "bash" && shell != "zsh" {
		return usagef("want bash or zsh, got %q", shell)
	}
	if shell == "zsh" {
		fmt.Fprintln(w, "autoload -U +X bashcompinit && bashcompinit")
	}
	cs := commands()
	// Longest names first, so that "client add" wins over "client".
	slices.SortStableFunc(cs, func(a, b command) int { return len(b.name) - len(a.name) })
	var firsts []string
	seconds := map[string][]string{}
	for _, c := range cs {
		first, second, _ := strings.Cut(c.name, " ")
		if !slices.Contains(firsts, first) {
			firsts = append(firsts, first)
		}
		if second != "" {
			seconds[first] = append(seconds[first], second)
		}
	}
	slices.Sort(firsts)
	fmt.Fprintln(w, "_ingest() {")
	fmt.Fprintln(w, `  local cur="${COMP_WORDS[COMP_CWORD]}" line=" ${COMP_WORDS[*]:1:COMP_CWORD-1} "`)
	io.WriteString(w, `  line=$(printf '%s' "$line" | sed -E 's/ --?[a-z-]+( [^ -][^ ]*)?//g; s/  +/ /g')`+"\n")
	fmt.Fprintln(w, `  case "$line" in`)
	for _, c := range cs {
		fmt.Fprintf(w, "    \" %s \"*) COMPREPLY=($(compgen -W %q -- \"$cur\")); return;;\n", c.name, strings.Join(flagNames(c), " "))
	}
	for first, subs := range seconds {
		fmt.Fprintf(w, "    \" %s \") COMPREPLY=($(compgen -W %q -- \"$cur\")); return;;\n", first, strings.Join(subs, " "))
	}
	fmt.Fprintf(w, "    \" \") COMPREPLY=($(compgen -W %q -- \"$cur\")); return;;\n", strings.Join(append(firsts, "help"), " ")+" --nats --editor --dry-run --version --help")
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -o default -F _ingest ingest")
	return nil
}

func completion() command {
	return command{name: "completion", args: "bash|zsh",
		summary: "print a shell completion script for ingest's commands and flags",
		example: "source <(ingest completion bash)    # or, in ~/.zshrc: source <(ingest completion zsh)",
		run: func(_ context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want bash or zsh")
			}
			return completionScript(e.stdout, pos[0])
		}}
}
