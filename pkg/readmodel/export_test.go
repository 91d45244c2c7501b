package readmodel

import "github.com/footdata/footballd/pkg/events"

// ApplyBatch applies evs as one live batch published once at its end, the
// way Run applies a burst of messages the stream says are waiting.
func (m *Model) ApplyBatch(evs ...events.Event) {
	c := &chunk{evs: evs, pending: make([]uint64, len(evs)), vals: make([]any, len(evs)), errs: make([]error, len(evs))}
	for i, ev := range evs {
		c.vals[i], c.errs[i] = decodeEvent(ev)
		c.pending[i] = uint64(len(evs) - 1 - i)
	}
	m.applyChunk(c)
}

// Stalled records a stalled consumer's replacement, as Run does when
// Consume reports one.
func (m *Model) Stalled(e *events.StallError) { m.stalled(e) }
