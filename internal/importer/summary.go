package importer

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

// Counts tallies what happened to one kind of entity.
type Counts struct {
	Created, Updated, Unchanged, Rejected int
	// HeldBack counts fixtures not written because a team name is
	// unknown (Options.HoldUnknownTeams).
	HeldBack int
}

// Changed counts what was created or updated.
func (c Counts) Changed() int { return c.Created + c.Updated }

func (c *Counts) add(a editor.Action) {
	switch a {
	case editor.Created:
		c.Created++
	case editor.Updated:
		c.Updated++
	default:
		c.Unchanged++
	}
}

// Rejection is one entry the importer refused, with the reason.
type Rejection struct {
	File string
	Line int    // row or match number in the file; 0 for the whole file
	What string // the entry ("Arsenal v Chelsea (PL 2015, Matchday 1)")
	Err  error
}

// reason is what a rejection is grouped by: the rule broken, without the
// values of this entry.
func (r Rejection) reason() string {
	var e *model.Error
	if errors.As(r.Err, &e) && e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return r.Err.Error()
}

func (r Rejection) String() string {
	var b strings.Builder
	b.WriteString(r.File)
	if r.Line > 0 {
		fmt.Fprintf(&b, ":%d", r.Line)
	}
	if r.What != "" {
		b.WriteString(" " + r.What)
	}
	b.WriteString(": " + r.Err.Error())
	return b.String()
}

// Summary is what an import did.
type Summary struct {
	Files                                               int
	Leagues, Competitions, Teams, Fixtures, Adjustments Counts
	// Squads are the squads written; TieBreaks the competitions' tie-break
	// data (disciplinary points counted from a file's cards).
	Squads, TieBreaks Counts
	// Persons are the scorers of goals written (created, or changed: a
	// spelling added).
	Persons  Counts
	Rejected []Rejection
	Warnings []Warning
	// HeldBack counts, by the name no team has, the fixtures held back
	// for it (Options.HoldUnknownTeams).
	HeldBack map[string]int
	// Disagreements are a feed's fixtures whose stored values hold
	// against what its source says (Options.Feed).
	Disagreements []Disagreement
	// Said is what a feed's source said of the fixtures other sources
	// made, by fixture and field: the next import's Options.Said.
	Said map[int]map[string]string
}

// Changes counts the entities created or updated, of every kind.
func (s *Summary) Changes() int {
	return s.Leagues.Changed() + s.Competitions.Changed() + s.Teams.Changed() + s.Fixtures.Changed() + s.Adjustments.Changed() +
		s.Squads.Changed() + s.TieBreaks.Changed() + s.Persons.Changed()
}

func (s *Summary) reject(r Rejection) { s.Rejected = append(s.Rejected, r) }

// examples is how many rejections of one reason Print shows without
// verbose.
const examples = 3

// Print writes the summary for an editor: the files imported, counts,
// then the rejections grouped by reason, most frequent first, with a count
// and the first few examples; verbose lists every one. A single rejection
// is not listed: the command says it as its error, once.
func (s *Summary) Print(w io.Writer, dryRun, verbose bool) {
	head := "imported"
	if dryRun {
		head = "dry run, nothing published; would have imported"
	}
	if refused := s.RefusedFiles(); refused > 0 {
		fmt.Fprintf(w, "%s %d of %d file(s): %d refused whole\n", head, s.Files-refused, s.Files, refused)
	} else {
		fmt.Fprintf(w, "%s %d file(s)\n", head, s.Files)
	}
	fmt.Fprintf(w, "  %-13s %8s %8s %10s %9s\n", "", "created", "updated", "unchanged", "rejected")
	type row struct {
		name string
		c    Counts
	}
	rows := []row{{"leagues", s.Leagues}, {"competitions", s.Competitions}, {"teams", s.Teams}, {"fixtures", s.Fixtures}, {"adjustments", s.Adjustments}}
	// Only the formats that have them write squads and tie-break data:
	// their rows would be zeros for every other import.
	if s.Squads != (Counts{}) {
		rows = append(rows, row{"squads", s.Squads})
	}
	if s.TieBreaks != (Counts{}) {
		rows = append(rows, row{"tie-breaks", s.TieBreaks})
	}
	if s.Persons != (Counts{}) {
		rows = append(rows, row{"persons", s.Persons})
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-13s %8d %8d %10d %9d\n", r.name, r.c.Created, r.c.Updated, r.c.Unchanged, r.c.Rejected)
	}
	if len(s.HeldBack) > 0 {
		names := slices.Sorted(maps.Keys(s.HeldBack))
		fmt.Fprintf(w, "held back %d fixture(s): no team has the name %s (add a spelling with `ingest team alias`)\n",
			s.Fixtures.HeldBack, strings.Join(names, ", "))
	}
	printGroups(w, "warning", s.Warnings, func(x Warning) string { return x.Kind }, verbose)
	if len(s.Rejected) > 1 {
		printGroups(w, "rejected", s.Rejected, Rejection.reason, verbose)
	}
}

// printGroups prints items grouped by key, the largest group first, each
// with its count and the first few items (every item when verbose).
func printGroups[T fmt.Stringer](w io.Writer, label string, items []T, key func(T) string, verbose bool) {
	groups := map[string][]T{}
	var keys []string
	for _, it := range items {
		k := key(it)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], it)
	}
	sort.SliceStable(keys, func(i, j int) bool { return len(groups[keys[i]]) > len(groups[keys[j]]) })
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(w, "%s %d: %s\n", label, len(g), k)
		shown := g
		if !verbose && len(g) > examples {
			shown = g[:examples]
		}
		for _, it := range shown {
			fmt.Fprintf(w, "  %s\n", it)
		}
		if len(shown) < len(g) {
			fmt.Fprintf(w, "  … and %d more (--verbose lists them all)\n", len(g)-len(shown))
		}
	}
}

// RefusedFiles counts the files refused whole: nothing of them was
// imported.
func (s *Summary) RefusedFiles() int {
	files := map[string]bool{}
	for _, r := range s.Rejected {
		if r.Line == 0 {
			files[r.File] = true
		}
	}
	return len(files)
}

// RejectedFiles counts the files with a rejection.
func (s *Summary) RejectedFiles() int {
	files := map[string]bool{}
	for _, r := range s.Rejected {
		files[r.File] = true
	}
	return len(files)
}
