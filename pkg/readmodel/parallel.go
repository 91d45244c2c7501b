package readmodel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelMin is the number of items from which a publication spreads a
// step over every core. The end of the initial replay rebuilds thousands of
// competitions, teams, days and pairs while the consumer has nothing left to
// do; a live edit touches a handful, which goroutines would only slow down.
const parallelMin = 256

// forEach calls fn for every index below n, on every core when n is large.
// fn must only read state shared between calls and write its own index's
// result: the writer commits the results afterwards, alone, since cowMaps
// and the batch are not safe for concurrent writes.
func forEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelMin)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	// Items differ in cost (a competition's tables against a team's list),
	// so workers take small blocks in turn rather than a fixed share.
	const block = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				start := int(next.Add(block)) - block
				if start >= n {
					return
				}
				for i := start; i < min(start+block, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}

// both runs a and b, at once when big.
func both(big bool, a, b func()) {
	if !big || runtime.GOMAXPROCS(0) < 2 {
		a()
		b()
		return
	}
	var wg sync.WaitGroup
	wg.Go(b)
	a()
	wg.Wait()
}
