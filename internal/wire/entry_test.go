package wire

import (
	"bytes"
	"testing"
)

// maxAge10 is the Cache-Control value of the tests' entries.
var maxAge10 = []byte("max-age=10")

func TestEntryCompressesLargeBodies(t *testing.T) {
	small := NewEntry(200, []byte(`{"a":1}`), maxAge10)
	large := NewEntry(200, make([]byte, 4096), maxAge10)
	if small.Gzipped() != nil || large.Gzipped() == nil || len(large.Gzipped()) >= 4096 || bytes.Equal(small.ETag(), large.ETag()) {
		t.Errorf("small gz %v, large gz %d bytes, etags %s %s", small.Gzipped() != nil, len(large.Gzipped()), small.ETag(), large.ETag())
	}
}

// TestBodyPoolClasses: a body is lent a buffer of the smallest class that
// holds it, bodies outside the pooled sizes are not lent, and the pool
// keeps at most its bound of free buffers.
func TestBodyPoolClasses(t *testing.T) {
	p := NewPool(3 * bodyClassStep)
	for _, tt := range []struct {
		n, cap int
		lent   bool
	}{
		{bodyPoolMin - 1, 0, false},
		{bodyPoolMin, bodyClassStep, true},
		{bodyPoolMin + 1, 2 * bodyClassStep, true},
		{10_079, 20 * bodyClassStep, true},
		{SendfileMin - 1, bodyClasses * bodyClassStep, true},
		{SendfileMin, 0, false},
	} {
		if got := Pooled(tt.n); got != tt.lent {
			t.Errorf("Pooled(%d) = %v, want %v", tt.n, got, tt.lent)
			continue
		}
		if !tt.lent {
			continue
		}
		if b := p.Take(tt.n); len(b) != tt.n || cap(b) != tt.cap {
			t.Errorf("Take(%d): len %d cap %d, want cap %d", tt.n, len(b), cap(b), tt.cap)
		}
	}
	a, b := p.Take(2*bodyClassStep), p.Take(2*bodyClassStep)
	p.give(a)
	p.give(b) // beyond the bound: left to the collector
	if p.Free() != cap(a) {
		t.Errorf("%d bytes kept free, want %d", p.Free(), cap(a))
	}
}
