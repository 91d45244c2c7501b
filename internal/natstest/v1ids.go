package natstest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// V1TeamIDs reads the team ids of the historic v1 service that
// ../shared/spec/v1-ids.md gives from two v1 clients' id tables, each with
// its spellings: the reference the historic id table is checked against.
func V1TeamIDs(tb testing.TB) map[int][]string {
	tb.Helper()
	path := filepath.Join(SharedDir(), "..", "spec", "v1-ids.md")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("the historic id tests read %s: %v", path, err)
	}
	defer f.Close()
	ids := map[int][]string{}
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inTable = strings.HasPrefix(line, "## Teams, from two")
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !inTable || len(cells) < 2 {
			continue
		}
		id, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header and its rule
		}
		for _, name := range strings.Split(cells[1], " / ") {
			ids[id] = append(ids[id], strings.TrimSpace(name))
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(ids) == 0 {
		tb.Fatalf("%s lists no team ids", path)
	}
	return ids
}
