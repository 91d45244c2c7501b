package push

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/footdata/footballd/pkg/model"
)

// EventID is where an event stands in the stream of events: the stream
// sequence of its edit and its place among that edit's events (from 0).
// Every replica derives the same events in the same order, so an ID means
// the same event on every replica and a client may resume on any.
type EventID struct {
	Seq uint64
	N   int
}

// afterAll is the N of an ID that stands after every event of its edit.
const afterAll = int(^uint(0) >> 1)

// String is the ID as event streams send it, "<seq>.<n>", or "<seq>" for
// the place after every event of an edit.
func (id EventID) String() string {
	if id.N == afterAll {
		return strconv.FormatUint(id.Seq, 10)
	}
	return strconv.FormatUint(id.Seq, 10) + "." + strconv.Itoa(id.N)
}

// Less orders IDs as the stream does.
func (id EventID) Less(o EventID) bool {
	return id.Seq < o.Seq || (id.Seq == o.Seq && id.N < o.N)
}

// ParseEventID reads an ID as String writes it; a bare sequence "<seq>"
// stands after every event of that edit.
func ParseEventID(s string) (EventID, error) {
	seq, n, dotted := strings.Cut(s, ".")
	id := EventID{N: afterAll}
	var err error
	if id.Seq, err = strconv.ParseUint(seq, 10, 64); err != nil {
		return EventID{}, fmt.Errorf("event id %q: want <sequence>.<index>", s)
	}
	if dotted {
		if id.N, err = strconv.Atoi(n); err != nil || id.N < 0 {
			return EventID{}, fmt.Errorf("event id %q: want <sequence>.<index>", s)
		}
	}
	return id, nil
}

// Entry is an event held by a Hub, with its ID and its body rendered once
// per public base.
type Entry struct {
	ID    EventID
	Event Event
	body  atomic.Pointer[rendered]
}

type rendered struct {
	base string
	body []byte
}

// Body is the event's body for base, rendered once and shared by every
// stream with the same base (in practice, all of them).
func (e *Entry) Body(base string) ([]byte, error) {
	if r := e.body.Load(); r != nil && r.base == base {
		return r.body, nil
	}
	b, err := e.Event.Body(base)
	if err != nil {
		return nil, err
	}
	e.body.Store(&rendered{base, b})
	return b, nil
}

// Filter selects events for a subscriber. Each list that is not empty must
// match (an event about one of its competitions, one of its leagues…), and
// the event's tier must be one Tier allows. Team and fixture filters
// select fixture events only: a competition event is about no one team.
type Filter struct {
	Tier         model.Tier
	Competitions []int32
	Leagues      []model.LeagueCode
	Teams        []int32
	Fixtures     []int32
}

// Match reports whether the filter selects e.
func (f *Filter) Match(e *Event) bool {
	switch {
	case !f.Tier.Allows(e.Tier):
		return false
	case len(f.Competitions) > 0 && !slices.Contains(f.Competitions, e.Competition):
		return false
	case len(f.Leagues) > 0 && !slices.Contains(f.Leagues, e.League):
		return false
	case len(f.Fixtures) > 0 && (e.Kind != FixtureUpdate || !slices.Contains(f.Fixtures, e.ID)):
		return false
	case len(f.Teams) > 0 && !slices.ContainsFunc(e.Teams, func(t int32) bool { return slices.Contains(f.Teams, t) }):
		return false
	}
	return true
}

// HubConfig configures a Hub; every field has a default.
type HubConfig struct {
	// History is how many recent events the hub keeps for clients that
	// resume (default 10,000).
	History int
	// Buffer is how many events a subscriber may fall behind before it is
	// dropped (default 256). A dropped event stream's client reconnects
	// and resumes from History, so this needs no room for bursts; it is
	// most of what an idle subscription holds.
	Buffer int
}

func (c *HubConfig) setDefaults() {
	if c.History == 0 {
		c.History = 10_000
	}
	if c.Buffer == 0 {
		c.Buffer = 256
	}
}

// Validate checks the configuration.
func (c *HubConfig) Validate() error {
	if c.History < 1 || c.Buffer < 1 {
		return fmt.Errorf("event hub: history %d and buffer %d must be at least 1", c.History, c.Buffer)
	}
	return nil
}

// Hub hands one replica's events to its live subscribers (event streams)
// and keeps the latest for subscribers that resume. Publish never waits
// for a subscriber: one that falls Buffer events behind is dropped, and
// told so, rather than slowing the read model down.
type Hub struct {
	cfg HubConfig

	mu   sync.Mutex
	ring []*Entry // the latest events, oldest at head once full
	head int
	// evicted is the ID of the newest event that left the ring: a client
	// that saw it can resume from the ring.
	evicted EventID
	subs    map[*Subscription]struct{}
	closed  bool
}

// NewHub returns an empty hub.
func NewHub(cfg HubConfig) (*Hub, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Hub{cfg: cfg, ring: make([]*Entry, 0, min(cfg.History, 1024)), subs: map[*Subscription]struct{}{}}, nil
}

// Subscription is one subscriber's feed of events.
type Subscription struct {
	hub    *Hub
	filter Filter
	// after is the ID after which C delivers events; start was after when
	// the subscription began.
	after, start EventID
	c            chan *Entry
	// Dropped is set before C closes if the subscriber fell behind, rather
	// than the hub closing.
	dropped atomic.Bool
}

// Start is the ID of the last event before those the subscription
// delivers (its backlog, then C): where a client that starts over stands.
func (s *Subscription) Start() EventID { return s.start }

// C delivers the subscriber's events in order; it closes when the hub
// closes or drops the subscriber (see Dropped).
func (s *Subscription) C() <-chan *Entry { return s.c }

// Dropped reports whether the subscription ended because the subscriber
// fell behind.
func (s *Subscription) Dropped() bool { return s.dropped.Load() }

// Close ends the subscription.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.c)
	}
}

// Publish hands events to the hub, in stream order. It is called on the
// read model's writer (readmodel.Config.Events) and never blocks.
func (h *Hub) Publish(evs []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	for i := range evs {
		id := EventID{Seq: evs[i].Seq}
		if i > 0 && evs[i-1].Seq == id.Seq {
			id.N = h.newest().ID.N + 1
		}
		e := &Entry{ID: id, Event: evs[i]}
		h.keep(e)
		for s := range h.subs {
			if !s.after.Less(id) || !s.filter.Match(&e.Event) {
				continue
			}
			select {
			case s.c <- e:
			default:
				s.dropped.Store(true)
				delete(h.subs, s)
				close(s.c)
			}
		}
	}
}

func (h *Hub) newest() *Entry {
	if len(h.ring) < h.cfg.History || h.head == 0 {
		return h.ring[len(h.ring)-1]
	}
	return h.ring[h.head-1]
}

func (h *Hub) keep(e *Entry) {
	if len(h.ring) < h.cfg.History {
		h.ring = append(h.ring, e)
		return
	}
	h.evicted = h.ring[h.head].ID
	h.ring[h.head] = e
	h.head = (h.head + 1) % len(h.ring)
}

// Subscribe starts a subscription to the events f selects. With resume,
// it also returns the events after from still held, in order, for the
// subscriber to send before those of C; ok is false when an event after
// from may be missing: it has left the history, or it came before floor,
// the stream sequence this replica's history starts after. The subscriber
// must then start over.
func (h *Hub) Subscribe(f Filter, resume bool, from EventID, floor uint64) (sub *Subscription, backlog []*Entry, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sub = &Subscription{hub: h, filter: f, c: make(chan *Entry, h.cfg.Buffer), after: h.evicted}
	if len(h.ring) > 0 {
		sub.after = h.newest().ID
	}
	if floor := (EventID{Seq: floor, N: afterAll}); sub.after.Less(floor) {
		sub.after = floor
	}
	ok = !resume || (from.Seq >= floor && !from.Less(h.evicted))
	if resume && ok {
		n := len(h.ring)
		for i := range n {
			if e := h.ring[(h.head+i)%n]; from.Less(e.ID) && f.Match(&e.Event) {
				backlog = append(backlog, e)
			}
		}
		// A client coming from a replica further along has seen more.
		if sub.after.Less(from) {
			sub.after = from
		}
	}
	sub.start = sub.after
	if len(backlog) > 0 {
		sub.start = from
	}
	if h.closed {
		close(sub.c)
		return sub, backlog, ok
	}
	h.subs[sub] = struct{}{}
	return sub, backlog, ok
}

// Close ends every subscription (their C close, not dropped) and refuses
// new events; streams end cleanly on shutdown.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		close(s.c)
	}
}

// Subscribers is the number of live subscriptions.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
