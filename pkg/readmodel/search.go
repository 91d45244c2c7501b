package readmodel

import (
	"slices"
	"sort"
	"strings"
)

// searchIndex answers case-insensitive substring searches over team names
// and short names. All lower-cased names sit in one string, separated by
// NUL, so that a search is a few calls of strings.Index (which runs at
// memory speed) instead of a loop over teams; it is rebuilt only when a team
// changes.
type searchIndex struct {
	text  string
	start []int   // offset of each name in text
	team  []int32 // team of each name, ascending
}

func (w *writer) buildSearch() *searchIndex {
	ids := make([]int32, 0, len(w.teamEnt))
	for id := range w.teamEnt {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	x := &searchIndex{}
	var b strings.Builder
	add := func(id int32, name string) {
		b.WriteByte(0)
		x.start = append(x.start, b.Len())
		x.team = append(x.team, id)
		b.WriteString(strings.ToLower(name))
	}
	for _, id := range ids {
		t := w.teamEnt[id].v
		add(id, t.Name)
		if t.ShortName != nil && *t.ShortName != t.Name {
			add(id, *t.ShortName)
		}
	}
	x.text = b.String()
	return x
}

// find returns the teams with a name containing q, ascending by id.
func (x *searchIndex) find(q string) []int32 {
	q = strings.ToLower(q)
	if len(x.start) == 0 || strings.IndexByte(q, 0) >= 0 {
		return nil
	}
	var found []int32
	for from := 0; from <= len(x.text); {
		i := strings.Index(x.text[from:], q)
		if i < 0 {
			break
		}
		// The name holding the match: the last one starting at or
		// before it.
		n := sort.Search(len(x.start), func(k int) bool { return x.start[k] > from+i }) - 1
		if n < 0 {
			// q is empty and matched the leading separator.
			n = 0
		}
		if len(found) == 0 || found[len(found)-1] != x.team[n] {
			found = append(found, x.team[n])
		}
		if n+1 == len(x.start) {
			break
		}
		from = x.start[n+1]
	}
	return found
}
