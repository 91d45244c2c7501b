package readmodel

import (
	"runtime"
	"sync"
	"time"

	"github.com/footdata/footballd/pkg/events"
)

// chunkSize bounds the events handed from the consumer to the decoders at
// once: large enough that channel operations cost nothing per event, small
// enough that a replica holds little undecoded data.
const chunkSize = 256

// chunk is a run of consecutive events of the stream on its way from the
// consumer through a decoder to the writer.
type chunk struct {
	evs     []events.Event
	pending []uint64 // the stream's pending count at each event
	vals    []any    // decoded entities, set by a decoder
	errs    []error
	// ready marks the end of a replay, after the chunk's events; start
	// is when the replay began.
	ready bool
	start time.Time
	// restart marks the stream replaced after the chunk's events: the
	// writer drops what it applied (Model.Restart).
	restart bool
	done    chan struct{} // closed once decoded
}

// pipeline decodes on several goroutines and applies on one, in order.
// The consumer's handler appends events to a chunk and sends a chunk when it
// is full or when the stream has nothing more waiting (so a live event is
// never held back). Each chunk goes both to the decoders and, in stream
// order, to the writer, which waits until the chunk is decoded and applies
// it. Goroutines: the decoders and the writer, started by newPipeline, end
// after close; wg tracks them.
type pipeline struct {
	m       *Model
	cur     *chunk
	work    chan *chunk
	ordered chan *chunk
	// start is when the current replay began.
	start time.Time
}

func newPipeline(m *Model, wg *sync.WaitGroup) *pipeline {
	decoders := max(1, runtime.GOMAXPROCS(0))
	p := &pipeline{m: m, work: make(chan *chunk, 2*decoders), ordered: make(chan *chunk, 4*decoders), start: time.Now()}
	for range decoders {
		wg.Go(func() {
			for c := range p.work {
				for i, ev := range c.evs {
					c.vals[i], c.errs[i] = decodeEvent(ev)
				}
				close(c.done)
			}
		})
	}
	wg.Go(func() {
		for c := range p.ordered {
			<-c.done
			m.applyChunk(c)
		}
	})
	return p
}

// handle is the consumer's handler. The event, body included, is the
// handler's to keep until its chunk is applied.
func (p *pipeline) handle(ev events.Event, pr events.Progress) error {
	if p.cur == nil {
		// Room for the events the stream says are waiting, up to a
		// chunk: a replay's chunks never grow, a live event's is small.
		n := int(min(chunkSize, pr.Pending+1))
		p.cur = &chunk{evs: make([]events.Event, 0, n), pending: make([]uint64, 0, n)}
	}
	c := p.cur
	c.evs = append(c.evs, ev)
	c.pending = append(c.pending, pr.Pending)
	if len(c.evs) == chunkSize || pr.Pending == 0 {
		p.send()
	}
	return nil
}

// ready is the consumer's onReady: the writer marks the model ready after
// the events sent so far.
func (p *pipeline) ready() {
	if p.cur == nil {
		p.cur = &chunk{}
	}
	p.cur.ready, p.cur.start = true, p.start
	p.send()
}

// restart is told that the stream was replaced, before anything of the
// new one comes: the writer restarts the model after the events sent so
// far.
func (p *pipeline) restart() {
	if p.cur == nil {
		p.cur = &chunk{}
	}
	p.cur.restart = true
	p.send()
	p.start = time.Now()
}

func (p *pipeline) send() {
	c := p.cur
	p.cur = nil
	c.vals = make([]any, len(c.evs))
	c.errs = make([]error, len(c.evs))
	c.done = make(chan struct{})
	p.ordered <- c
	p.work <- c
}

// close sends what is left and ends the goroutines once they are done.
func (p *pipeline) close() {
	if p.cur != nil {
		p.send()
	}
	close(p.work)
	close(p.ordered)
}
