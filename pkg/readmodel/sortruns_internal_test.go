package readmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRunsSortsLikeTheGeneralSort checks the run-merging sort on the
// shapes a replay gives (ordered runs, interleaved competitions) and on
// those it hands to the general sort.
func TestSortRunsSortsLikeTheGeneralSort(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	fixtures := func(n int) []*fixture {
		list := make([]*fixture, n)
		for i := range list {
			// Few kick-off times, so that ties fall to the id.
			list[i] = &fixture{id: int32(i + 1), kickoff: int64(r.IntN(n/4+1)) * 3600}
		}
		return list
	}
	runs := func(n, k int) []*fixture {
		var out []*fixture
		for range k {
			run := fixtures(n / k)
			slices.SortFunc(run, byDate)
			for _, f := range run {
				f.id += int32(len(out)) * 1000
			}
			out = append(out, run...)
		}
		return out
	}
	for _, c := range []struct {
		name string
		list []*fixture
	}{
		{"empty", nil},
		{"one", fixtures(1)},
		{"sorted", runs(500, 1)},
		{"two runs", runs(500, 2)},
		{"seven runs", runs(700, 7)},
		{"sixty runs", runs(6000, 60)},
		{"reversed", func() []*fixture {
			l := runs(300, 1)
			slices.Reverse(l)
			return l
		}()},
		{"random", fixtures(1000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := slices.Clone(c.list)
			slices.SortFunc(want, byDate)
			got := slices.Clone(c.list)
			sortRuns(got, byDate)
			if !slices.Equal(got, want) {
				t.Fatalf("sortRuns gave a different order than slices.SortFunc on %d fixtures", len(got))
			}
		})
	}
}
