package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchRunsLeaveTheCheckoutClean: make bench and make bench-quick,
// and scripts/bench by default, write their results where git ignores
// them, so a run leaves the checkout clean; the tracked bench/results are
// the runs the docs quote.
func TestBenchRunsLeaveTheCheckoutClean(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile("bench/main.go")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^(bench(?:-quick)?): .*\n\t.*scripts/bench.* --out (\S+)`).FindAllStringSubmatch(string(makefile), -1) {
		dirs["make "+m[1]] = m[2]
	}
	if m := regexp.MustCompile(`flag\.String\("out", "([^"]+)"`).FindStringSubmatch(string(main)); m != nil {
		dirs["scripts/bench's default"] = m[1]
	}
	if len(dirs) != 3 {
		t.Fatalf("found the results folder of %v, want make bench's, make bench-quick's and scripts/bench's default", dirs)
	}
	for who, dir := range dirs {
		for _, file := range []string{"latest.json", "latest.md", "20261128T080000Z-quick.json"} {
			path := filepath.Join(dir, file)
			cmd := exec.Command("git", "check-ignore", "-q", path)
			cmd.Dir = ".."
			if err := cmd.Run(); err != nil {
				t.Errorf("%s writes %s, which git does not ignore (%v): a run would leave the checkout dirty", who, path, err)
			}
		}
	}
}

// TestBenchDurations: every page that says how long make bench or make
// bench-quick takes says what it took here: about 11 minutes for the full
// run (10m38s, bench/results/latest.json) and about 2.5 minutes for the
// quick one (154 s, issue 37).
func TestBenchDurations(t *testing.T) {
	want := map[string]string{"bench": "about 11 minutes", "bench-quick": "about 2.5 minutes"}
	stated := regexp.MustCompile(`(?s)make\s+(bench(?:-quick)?)\b[^.;]{0,60}?\b((?:about|under|in) [\w. ]{0,20}?minutes?|a few minutes|a minute and a half)`)
	for _, page := range []string{"README.md", "bench/README.md", "docs/performance.md", "Makefile"} {
		raw, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		// The Makefile's help comments name the target alone.
		text := strings.ReplaceAll(strings.ReplaceAll(string(raw), "\n## bench", "\nmake bench"), "## ", "")
		found := 0
		for _, m := range stated.FindAllStringSubmatch(text, -1) {
			found++
			if got := strings.Join(strings.Fields(m[2]), " "); !strings.HasPrefix(got, want[m[1]]) {
				t.Errorf("%s: make %s takes %q, want %q", page, m[1], got, want[m[1]])
			}
		}
		if found == 0 {
			t.Errorf("%s: says nowhere how long make bench takes", page)
		}
	}
}
