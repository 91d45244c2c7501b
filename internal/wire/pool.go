package wire

import "sync"

// Pool recycles the buffers of rendered bodies. On a replica of a
// large world the collector's cost is marking the read model (hundreds of
// MB of pointers, 0.6–0.8 s of wall time a cycle at 1M fixtures), and what
// sets how often it runs is how fast the heap grows: a cache miss used to
// allocate its whole body (10 KB for a league table), so a stream of
// misses ran the collector every second or two. A body whose entry has
// left the cache and whose last response has been written goes back here
// and is the next miss's buffer, so misses allocate almost nothing.
//
// Buffers come in classes of bodyClassStep bytes, from bodyPoolMin to
// SendfileMin; the body is the buffer cut to its length. Smaller bodies
// are not worth it and larger ones are sent from a body file whose
// lifetime is the entry's, left to the collector.
type Pool struct {
	mu sync.Mutex
	// free holds, by class, the buffers given back and not yet taken.
	free [bodyClasses][][]byte
	// freeBytes is the capacity held in free, at most maxFree: past it a
	// buffer given back is left to the collector.
	freeBytes int
	maxFree   int
}

const (
	bodyClassStep = 512
	bodyPoolMin   = bodyClassStep
	bodyClasses   = (SendfileMin + bodyClassStep - 1) / bodyClassStep
)

// Pooled reports whether a body of n bytes is held in a pooled buffer.
func Pooled(n int) bool { return n >= bodyPoolMin && n < SendfileMin }

// class is the index of the smallest class that holds n bytes.
func class(n int) int { return (n+bodyClassStep-1)/bodyClassStep - 1 }

// NewPool makes a pool that keeps at most maxFree bytes of free buffers.
func NewPool(maxFree int) *Pool { return &Pool{maxFree: maxFree} }

// Take returns a buffer of len n (Pooled(n) must hold), recycled when one
// of its class is free. Its bytes are whatever the last body left: the
// caller overwrites all n.
func (p *Pool) Take(n int) []byte {
	c := class(n)
	p.mu.Lock()
	if k := len(p.free[c]); k > 0 {
		b := p.free[c][k-1]
		p.free[c][k-1] = nil
		p.free[c] = p.free[c][:k-1]
		p.freeBytes -= cap(b)
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	return make([]byte, n, (c+1)*bodyClassStep)
}

// give takes back a buffer from Take once nothing reads it any more.
func (p *Pool) give(b []byte) {
	c := class(cap(b))
	p.mu.Lock()
	if p.freeBytes+cap(b) <= p.maxFree {
		p.free[c] = append(p.free[c], b[:0])
		p.freeBytes += cap(b)
	}
	p.mu.Unlock()
}

// Free is the capacity of the buffers given back and not yet taken.
func (p *Pool) Free() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.freeBytes
}
