package push

import (
	"fmt"
	"slices"
	"sort"
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
	// bodies holds the body of each API version.
	bodies [len(APIs)]atomic.Pointer[rendered]
}

type rendered struct {
	base string
	body []byte
}

// Body is the event's body for base and api, rendered once and shared by
// every stream with the same base (in practice, all of them) and version.
func (e *Entry) Body(base string, api API) ([]byte, error) {
	if r := e.bodies[api].Load(); r != nil && r.base == base {
		return r.body, nil
	}
	b, err := e.Event.Body(base, api)
	if err != nil {
		return nil, err
	}
	e.bodies[api].Store(&rendered{base, b})
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
	// History is how many recent events the hub keeps, for subscribers
	// that resume and for those that fall behind (default 10,000).
	History int
}

// DefaultHistory is HubConfig.History's default, which the api command's
// --event-history shares.
const DefaultHistory = 10_000

func (c *HubConfig) setDefaults() {
	if c.History == 0 {
		c.History = DefaultHistory
	}
}

// Validate checks the configuration.
func (c *HubConfig) Validate() error {
	if c.History < 1 {
		return fmt.Errorf("event hub: history %d must be at least 1", c.History)
	}
	return nil
}

// Hub keeps one replica's latest events and hands them to any number of
// subscribers (event streams). Publishing costs the same whatever the
// number of subscribers: it appends to the history and wakes them, and
// each subscriber reads and filters the history on its own goroutine from
// where it stands. A subscriber so slow that the history no longer holds
// where it stands is told so (Behind) rather than ever slowing the read
// model down.
type Hub struct {
	cfg HubConfig
	// kick asks the waker to wake the subscribers; stop ends it.
	kick, stop chan struct{}
	done       chan struct{}

	// mu is taken to write by Publish and the waker, to read by the
	// subscribers.
	mu   sync.RWMutex
	ring []*Entry // the latest events, oldest at head once full
	head int
	// evicted is the ID of the newest event that left the ring: a
	// subscriber that saw it can go on from the ring.
	evicted EventID
	// changed is closed when events are added (or the hub closes), and
	// replaced.
	changed chan struct{}
	closed  bool
}

// NewHub returns an empty hub. Its one goroutine, which wakes subscribers,
// ends with Close.
func NewHub(cfg HubConfig) (*Hub, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := &Hub{cfg: cfg, ring: make([]*Entry, 0, min(cfg.History, 1024)), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), changed: make(chan struct{})}
	go h.wake()
	return h, nil
}

// wake closes changed on every kick, off the publisher's goroutine: waking
// many waiting subscribers costs time in proportion to their number.
func (h *Hub) wake() {
	defer close(h.done)
	for {
		select {
		case <-h.stop:
			return
		case <-h.kick:
		}
		h.mu.Lock()
		old := h.changed
		h.changed = make(chan struct{})
		h.mu.Unlock()
		close(old)
	}
}

// Publish adds events to the hub, in stream order. It is called on the
// read model's writer (readmodel.Config.Events) and never waits for a
// subscriber.
func (h *Hub) Publish(evs []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(evs) == 0 {
		return
	}
	for i := range evs {
		id := EventID{Seq: evs[i].Seq}
		if i > 0 && evs[i-1].Seq == id.Seq {
			id.N = h.newest().ID.N + 1
		}
		h.keep(&Entry{ID: id, Event: evs[i]})
	}
	select {
	case h.kick <- struct{}{}:
	default:
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

// Close wakes every subscriber for the last time (Take then reports
// Closed) and refuses new events: streams end cleanly on shutdown. Closing
// again does nothing.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.changed)
}

// Subscription is one subscriber's place in the hub's events: the ID of
// the last event it has taken, and its filter.
type Subscription struct {
	hub    *Hub
	filter Filter
	after  EventID
}

// State says whether a subscription goes on.
type State int

const (
	// Open: more events may come.
	Open State = iota
	// Behind: events after the subscriber's place have left the history;
	// it must start over. The subscription has moved on to the newest
	// event.
	Behind
	// Closed: the hub has closed.
	Closed
)

// Subscribe starts a subscription to the events f selects, after the
// newest the hub holds; with resume, after from instead. from may be ahead
// of the hub (the client saw it on a replica further on) up to ceiling,
// the stream's last sequence. ok is false when an event after from may be
// missing (it has left the history, or it came before floor, the stream
// sequence this replica's history starts after), or when from is beyond
// ceiling: no stream has it, and waiting for it would hold back every
// event until the stream got that far. The subscription then starts after
// the newest event, and the subscriber must tell its client to start
// over.
func (h *Hub) Subscribe(f Filter, resume bool, from EventID, floor, ceiling uint64) (sub *Subscription, ok bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	sub = &Subscription{hub: h, filter: f, after: h.evicted}
	if len(h.ring) > 0 {
		sub.after = h.newest().ID
	}
	if floor := (EventID{Seq: floor, N: afterAll}); sub.after.Less(floor) {
		sub.after = floor
	}
	ok = !resume || (from.Seq >= floor && !from.Less(h.evicted) && from.Seq <= ceiling)
	if resume && ok {
		sub.after = from
	}
	return sub, ok
}

// After is the ID of the last event taken (or skipped): where a client
// that starts over stands.
func (s *Subscription) After() EventID { return s.after }

// Changed is closed when events may have come after those Take returned;
// ask for it before Take, so that nothing published in between is missed.
func (s *Subscription) Changed() <-chan struct{} {
	s.hub.mu.RLock()
	defer s.hub.mu.RUnlock()
	return s.hub.changed
}

// Take returns, in order, the events after the subscription's place that
// its filter selects, and moves past every event held.
func (s *Subscription) Take() ([]*Entry, State) {
	h := s.hub
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return nil, Closed
	}
	if s.after.Less(h.evicted) {
		s.after = h.newest().ID
		return nil, Behind
	}
	n := len(h.ring)
	at := func(i int) *Entry { return h.ring[(h.head+i)%n] }
	// The first event after s.after: the ring is in ID order.
	i := sort.Search(n, func(i int) bool { return s.after.Less(at(i).ID) })
	var out []*Entry
	for ; i < n; i++ {
		e := at(i)
		if s.filter.Match(&e.Event) {
			out = append(out, e)
		}
		s.after = e.ID
	}
	return out, Open
}
