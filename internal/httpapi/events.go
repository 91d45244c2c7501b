package httpapi

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// eventsPath is the live event stream: Server-Sent Events of the replica's
// hub (push.Hub). Browsers' EventSource cannot send headers, so there the
// token may come in the query string (authenticate).
const eventsPath = "/v1/events"

const contentTypeEventStream = "text/event-stream"

// slotGrace is how long a request for a stream waits for a slot of its
// caller to be freed before it is refused. A stream frees its slot as soon
// as its client has gone (watchPeer), within milliseconds, but a browser
// that reconnects at once may come in before the old stream has noticed.
const slotGrace = time.Second

// streamSlots counts each caller's open streams.
type streamSlots struct {
	mu sync.Mutex
	n  map[string]int
	// freed is closed, and replaced, whenever a slot is released.
	freed chan struct{}
}

// take opens a slot of key unless it holds most already and none of them
// is released within grace.
func (s *streamSlots) take(key string, most int, grace time.Duration) bool {
	timeout := time.NewTimer(grace)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		if s.n[key] < most {
			s.n[key]++
			s.mu.Unlock()
			return true
		}
		freed := s.freed
		s.mu.Unlock()
		select {
		case <-freed:
		case <-timeout.C:
			return false
		}
	}
}

func (s *streamSlots) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key]--; s.n[key] <= 0 {
		delete(s.n, key)
	}
	close(s.freed)
	s.freed = make(chan struct{})
}

// events streams the events the filters select, as Server-Sent Events:
// "id: <seq>.<n>" (push.EventID, the same on every replica), "event:
// Fixture.Update" or "Competition.Update", "data: <the webhook body>". A
// client that comes back with Last-Event-ID gets what it missed while the
// hub holds it, else "event: reset". The request counted against the
// caller's limits when it was authenticated; open streams are bounded per
// caller besides.
func (s *Server) events(c *fiber.Ctx) error {
	who := requestOf(c)
	if c.Get(fiber.HeaderAccept) != "" && c.Accepts(contentTypeEventStream) == "" {
		return &apiError{http.StatusNotAcceptable, "this resource is a stream of Server-Sent Events; accept text/event-stream"}
	}
	f, filter, err := streamFilters(c, who)
	if err != nil {
		return err
	}
	var from push.EventID
	last := c.Get("Last-Event-ID")
	if last != "" {
		if from, err = push.ParseEventID(last); err != nil {
			return badRequest("Last-Event-ID must be the id of an event of this stream, such as 1234.0, got '%s'", truncateText(last, 40))
		}
	}
	// The key outlives the handler (the stream frees its slot): a string of
	// its own, not a view of the request.
	key, most := "ip|"+s.clientAddr(c).String(), s.opts.StreamsPerIP
	if who.tier != model.TierAnonymous {
		key, most = "client|"+who.name, s.opts.StreamsPerClient
	}
	if !s.streams.take(key, most, slotGrace) {
		// No Retry-After: a slot is free when the caller closes one of
		// its streams, which no time promised here would foretell.
		return &apiError{http.StatusTooManyRequests, "you have " + strconv.Itoa(most) + " event streams open already, the most you may; a slot is free as soon as you close one"}
	}
	c.Set(fiber.HeaderContentType, contentTypeEventStream)
	c.Set(fiber.HeaderCacheControl, "no-store")
	// Proxies such as nginx would otherwise buffer the stream.
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		s.streams.release(key)
		return nil
	}
	// Nothing of the request outlives the handler: copy what the stream
	// needs. The connection is the one thing the stream writer may use,
	// to push its write deadline on as it goes and to watch for its
	// client leaving; it is closed after the stream, so that nothing the
	// watch reads was the server's to read.
	base := strings.Clone(s.baseURL(c))
	conn := c.Context().Conn()
	c.Context().SetConnectionClose()
	ceiling := s.ceiling(c.UserContext(), from)
	sub, ok := s.opts.Hub.Subscribe(filter, last != "", from, s.model.Stats().ReadySeq, ceiling)
	why := "the events after " + from.String() + " are no longer held here; re-read the resources you follow"
	if from.Seq > ceiling {
		why = "no event " + from.String() + " was ever sent: the stream ends at " + strconv.FormatUint(ceiling, 10) + "; re-read the resources you follow"
	}
	s.metrics.streamsOpen.Inc()
	c.Context().SetBodyStreamWriter(s.streamWriter(c, func(w *bufio.Writer) {
		defer s.metrics.streamsOpen.Dec()
		defer s.streams.release(key)
		gone, stopWatch := watchPeer(conn)
		defer stopWatch()
		st := &stream{s: s, w: w, conn: conn, base: base, api: f.api}
		st.comment("footballd events")
		if !ok {
			st.reset(sub.After(), why)
		}
		keepAlive := time.NewTicker(s.opts.KeepAlive)
		defer keepAlive.Stop()
		for {
			changed := sub.Changed()
			es, state := sub.Take()
			for _, e := range es {
				st.event(e)
			}
			if state == push.Behind {
				// The client read so slowly that the history moved past
				// it: it starts over, from the newest event, and its
				// stream is closed to free what it holds here.
				s.metrics.streamsDropped.Inc()
				st.reset(sub.After(), "this stream fell behind by more than the events held; re-read the resources you follow")
			}
			if st.flush() != nil || state != push.Open {
				return
			}
			select {
			case <-changed:
			case <-keepAlive.C:
				st.comment("keepalive")
			case <-gone:
				return
			}
		}
	}))
	return nil
}

// streamFilters reads and checks the stream's query: its filters, and the
// hub's filter they make for the caller.
func streamFilters(c *fiber.Ctx, who *request) (filters, push.Filter, error) {
	f, err := parseFilters(c, fCompetitionIDs|fLeague|fTeamIDs|fFixtureIDs|fAPI, who.snap)
	if err != nil {
		return f, push.Filter{}, err
	}
	if err := checkStreamFilters(c, f, who.snap); err != nil {
		return f, push.Filter{}, err
	}
	filter := push.Filter{Tier: who.tier, Competitions: f.competitions, Teams: f.teams, Fixtures: f.fixtures}
	for _, l := range f.leagues {
		filter.Leagues = append(filter.Leagues, model.LeagueCode(l))
	}
	return f, filter, nil
}

// streamParams are the query parameters of the event stream: its filters,
// the version of its URIs and a browser's token.
var streamParams = []string{"competition", "league", "team", "fixture", "version", "token"}

// checkStreamFilters refuses what parseFilters lets by on other routes: a
// parameter the stream does not read, and a league, competition, team or
// fixture that does not exist. A list answers whatever its filters match,
// so an empty one shows the mistake; a stream would stay silent, or send
// everything, for as long as it is open.
func checkStreamFilters(c *fiber.Ctx, f filters, snap readmodel.Snapshot) error {
	var unknown string
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) {
		if unknown == "" && !slices.Contains(streamParams, string(k)) {
			unknown = string(k)
		}
	})
	if unknown != "" {
		return badRequest("%s is not a parameter of the event stream; it takes %s", truncateText(unknown, 40), strings.Join(streamParams, ", "))
	}
	for _, l := range f.leagues {
		if _, ok := snap.League(model.LeagueCode(l)); !ok {
			return badRequest("league %s does not exist; the leagues' codes are the league of each competition at /v1/competitions", l)
		}
	}
	for _, ids := range [...]struct {
		name, list string
		ids        []int32
		exists     func(int) bool
	}{
		{"competition", "/v1/competitions", f.competitions, func(id int) bool { _, ok := snap.CompetitionKey(id); return ok }},
		{"team", "/v1/competitions/{id}/teams", f.teams, func(id int) bool { _, ok := snap.Team(id); return ok }},
		{"fixture", "/v1/fixtures", f.fixtures, func(id int) bool { _, ok := snap.Fixture(id); return ok }},
	} {
		for _, id := range ids.ids {
			if !ids.exists(int(id)) {
				return badRequest("%s %d does not exist; the ids are those of %s", ids.name, id, ids.list)
			}
		}
	}
	return nil
}

// watchPeer tells when the client of an event stream has gone. A write
// learns it only at the next keepalive or later (the first write after the
// client closed still succeeds); a read on the connection ends as soon as
// the client closes it, with EOF or a reset. The client sends nothing
// after its request, so the read waits until then; anything it does send
// ends the stream too (the connection is closed after the stream, so no
// byte read here was the server's to read). stop ends the watch and
// returns once it has ended.
func watchPeer(conn net.Conn) (gone <-chan struct{}, stop func()) {
	if conn == nil {
		return nil, func() {}
	}
	ended, done := make(chan struct{}), make(chan struct{})
	// The request's read timeout would end the watch early.
	if err := conn.SetReadDeadline(time.Time{}); err != nil {
		close(ended)
		return ended, func() {}
	}
	go func() {
		defer close(done)
		var b [1]byte
		_, _ = conn.Read(b[:])
		close(ended)
	}()
	return ended, func() {
		// A deadline past ends the read.
		_ = conn.SetReadDeadline(time.Unix(1, 0))
		<-done
	}
}

// StreamEnd tells the stream's last sequence (events.Store does).
type StreamEnd interface {
	LastSeq(ctx context.Context) (uint64, error)
}

// ShareStream lets event streams ask the stream how far it goes, to tell
// a Last-Event-ID seen on a replica further on from one of no stream. The
// replica calls it once it reaches NATS, before it is ready.
func (s *Server) ShareStream(e StreamEnd) { s.streamEnd.Store(&e) }

// streamEndTimeout bounds the question to the stream.
const streamEndTimeout = 2 * time.Second

// ceiling is the last stream sequence a resumed stream may start after:
// what this replica has applied, or, for an id beyond that, the stream's
// last sequence. When the stream does not answer, the replica's: a client
// then starts over, which is safe, rather than wait for an event that may
// never come.
func (s *Server) ceiling(ctx context.Context, from push.EventID) uint64 {
	applied := s.model.Stats().LastSeq
	end := s.streamEnd.Load()
	if from.Seq <= applied || end == nil {
		return applied
	}
	ctx, cancel := context.WithTimeout(ctx, streamEndTimeout)
	defer cancel()
	last, err := (*end).LastSeq(ctx)
	if err != nil {
		s.log.Warn("event stream resume: the stream's last sequence", "err", err.Error())
		return applied
	}
	return max(last, applied)
}

// stream writes one client's Server-Sent Events.
type stream struct {
	s    *Server
	w    *bufio.Writer
	conn net.Conn
	base string
	api  push.API
	// err is the first write error: the client is gone.
	err error
}

func (st *stream) event(e *push.Entry) {
	body, err := e.Body(st.base, st.api)
	if err != nil {
		st.s.log.Error("event body", "key", e.Event.Key(), "err", err)
		return
	}
	st.write("id: ", e.ID.String(), "\nevent: ", e.Event.Kind, "\ndata: ", string(body), "\n\n")
	st.s.metrics.eventsSent.Inc()
}

// reset tells the client to start over; id is where the stream goes on
// from, so that the client's next reconnection resumes from there.
func (st *stream) reset(id push.EventID, reason string) {
	if id != (push.EventID{}) {
		st.write("id: ", id.String(), "\n")
	}
	st.write("event: reset\ndata: ", string(errorBody(v1, 0, reason)), "\n\n")
}

func (st *stream) comment(text string) { st.write(": ", text, "\n\n") }

func (st *stream) write(parts ...string) {
	for _, p := range parts {
		if st.err == nil {
			_, st.err = st.w.WriteString(p)
		}
	}
}

// flush sends what is written. The server's write timeout counts from the
// response's start, so each flush moves the deadline on: a stream lives
// as long as its client reads.
func (st *stream) flush() error {
	if st.err != nil || st.w.Buffered() == 0 {
		return st.err
	}
	if st.conn != nil {
		if err := st.conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
			return err
		}
	}
	st.err = st.w.Flush()
	return st.err
}
