package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestReadmeIsTheFrontDoor: the README is short, says what the service is,
// how to start it and where everything is, and leaves the reference to
// docs/: its sections are these, in this order, and its layout table names
// every package of cmd/, internal/ and pkg/, and nothing that is not there.
func TestReadmeIsTheFrontDoor(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= 250 {
		t.Errorf("README.md has %d lines; the reference belongs in docs/, the README well under 250", n)
	}
	var sections []string
	for _, m := range regexp.MustCompile(`(?m)^## (.*)$`).FindAllStringSubmatch(readme, -1) {
		sections = append(sections, m[1])
	}
	if want := []string{"Two commands", "First requests", "Layout", "Where to go next"}; !slices.Equal(sections, want) {
		t.Errorf("README.md's sections are %q, want %q", sections, want)
	}
	_, layout, _ := strings.Cut(readme, "\n## Layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(layout, -1) {
		listed[strings.TrimSuffix(m[1], "/")] = true
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("the layout table names %s: %v", m[1], err)
		}
	}
	for _, dir := range []string{"cmd", "internal", "pkg"} {
		entries, err := os.ReadDir(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() && !listed[dir+"/"+e.Name()] {
				t.Errorf("the layout table of README.md has no row for %s/%s", dir, e.Name())
			}
		}
	}
}

// TestLinksResolve: every relative link of README.md, docs/*.md and
// deploy/README.md leads to a file that is there and, with a #fragment, to
// a heading of that file, so that moving a section breaks a test, not a
// reader's link.
func TestLinksResolve(t *testing.T) {
	pages := []string{"README.md", "deploy/README.md"}
	names, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		pages = append(pages, "docs/"+name)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, fragment, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join("..", page)
			if target != "" {
				path = filepath.Join(filepath.Dir(path), target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s: %v", page, m[1], err)
				continue
			}
			if fragment != "" && !slices.Contains(anchors(t, path), fragment) {
				t.Errorf("%s links to %s: %s has no heading #%s", page, m[1], path, fragment)
			}
		}
	}
}

// anchors are the fragments GitHub gives the headings of a Markdown file:
// lower case, punctuation dropped, spaces as hyphens.
func anchors(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(heading)))
	}
	return out
}
