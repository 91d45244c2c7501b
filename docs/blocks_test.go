// Package docs_test checks the reference pages of docs/ and the README
// beside them: every shell block they give a reader is run by a test.
package docs_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// runBy names, for each shell block of the README and docs/, the test that
// runs it: the page, the words the test finds the block by (the first sh
// block after them), and the test's file (from the repository) and name.
var runBy = []struct{ page, after, file, test string }{
	{"README.md", "In another terminal:", "scripts/run_test.go", "TestMakeRun"},
	{"README.md", "The first edit", "scripts/run_test.go", "TestMakeRun"},
	{"docs/operations.md", "## Running replicas", "scripts/run_test.go", "TestMakeRun"},
	{"docs/push.md", "## Webhooks", "scripts/run_test.go", "TestMakeRun"},
	{"docs/tables.md", "Denmark's Superliga", "scripts/run_test.go", "TestMakeRun"},
	{"docs/v4.md", "written in (", "cmd/api/v4clients_test.go", "TestV4ClientLibraries"},
	{"docs/ingest.md", "## Goals and scorers", "cmd/ingest/goals_test.go", "TestDocsGoals"},
	{"docs/ingest.md", "## Live matches", "cmd/ingest/live_test.go", "TestDocsLiveMatches"},
	{"docs/feeds.md", "# Keeping data current", "cmd/ingest/docs_test.go", "TestDocsKeepingDataCurrent"},
	{"docs/feeds.md", "## Live sources", "cmd/ingest/livefeeds_test.go", "TestLiveFeedEndToEnd"},
}

// notRun are the shell blocks no test runs, found the same way, and why.
var notRun = []struct{ page, after, why string }{
	{"README.md", "## Two commands", "make run and make test themselves: make test is the tests (make check, beside it, the tests with -short), and TestMakeRun runs scripts/run.sh, make run's script"},
	{"docs/performance.md", "# Performance", "the benchmarks, minutes long: make bench runs them"},
}

// TestEveryShellBlockIsRun: every ```sh block of README.md and docs/*.md
// is one that runBy names, and the test named there reads that page by
// those words; or notRun says why no test runs it. A new block fails here
// until a test runs it.
func TestEveryShellBlockIsRun(t *testing.T) {
	pages := []string{"README.md"}
	names, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		pages = append(pages, "docs/"+name)
	}
	// claimed: page → the blocks (by offset) runBy and notRun account for.
	claimed := map[string]map[int]string{}
	claim := func(page, after, by string) {
		t.Helper()
		b := natstest.BlockAfter(t, filepath.Join("..", page), after, "sh")
		if claimed[page] == nil {
			claimed[page] = map[int]string{}
		}
		if other, ok := claimed[page][b.Offset]; ok {
			t.Errorf("%s: the block after %q is also the one of %s", page, after, other)
		}
		claimed[page][b.Offset] = by
	}
	for _, r := range runBy {
		src, err := os.ReadFile(filepath.Join("..", r.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"func " + r.test + "(", strconv.Quote(r.after), filepath.Base(r.page) + `"`} {
			if !strings.Contains(string(src), want) {
				t.Errorf("%s: no %s, so %s does not run %s's block after %q", r.file, want, r.test, r.page, r.after)
			}
		}
		claim(r.page, r.after, r.test)
	}
	for _, n := range notRun {
		claim(n.page, n.after, "no test: "+n.why)
	}
	for _, page := range pages {
		for _, b := range natstest.Blocks(t, filepath.Join("..", page)) {
			if _, ok := claimed[page][b.Offset]; b.Lang == "sh" && !ok {
				t.Errorf("%s: the sh block at byte %d is run by no test (add one, and a row to runBy):\n%s", page, b.Offset, b.Text)
			}
		}
	}
}
