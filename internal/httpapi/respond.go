package httpapi

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// Cache-Control lifetimes: data of a season that is over changes only by
// correction; everything current may change any second.
const (
	maxAgeLive     = 10
	maxAgeFinished = 3600
	maxAgeTeams    = 300
	// What is built into the binary changes only with a new release.
	maxAgeStatic = 3600
)

// maxAgeOf is how long a client may keep an answer about a competition's
// season: long once the season is over.
func maxAgeOf(who *request, comp readmodel.CompetitionKey) int {
	if comp.Year < who.snap.CurrentSeason() {
		return maxAgeFinished
	}
	return maxAgeLive
}

// visible drops the fixtures of competitions the caller may not see, from
// lists that cross competitions.
func visible(who *request, fs []readmodel.Fixture) []readmodel.Fixture {
	if who.tier == model.TierDonating {
		return fs
	}
	out := fs[:0:0]
	for _, f := range fs {
		if c, ok := who.snap.Competition(f.CompetitionID); ok && who.tier.Allows(c.Tier) {
			out = append(out, f)
		}
	}
	return out
}

// maxCalendarDays bounds a range of matches across competitions
// (/v1/fixtures, /v4/matches), as v1's timeFrame's 99 days do.
const maxCalendarDays = 99

// timestamp is how both versions write an instant, in UTC.
const timestamp = "2006-01-02T15:04:05Z"

func ts(t time.Time) string { return t.UTC().Format(timestamp) }

// date is a day as both versions write it, nil (null) for none.
func date(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.DateOnly)
	return &s
}

// cacheKey builds a response's cache key with one buffer: the route, how
// links are made (kind and base URL, which come from the request), the
// representation, what selects the answer, and the versions of the data
// it depends on, so a change of any of them is a new key. The buffer is
// the request's, reused from request to request.
type cacheKey struct {
	r *request
	b []byte
}

func (s *Server) newKey(c *fiber.Ctx, r *request, route string, kind linkKind, rep representation) cacheKey {
	k := cacheKey{r, r.key[:0]}
	k.b = append(k.b, route...)
	k.b = append(k.b, '|', byte('0'+kind), '|')
	k.b = append(k.b, rep...)
	k.b = append(k.b, '|')
	if s.opts.PublicURL == "" {
		k.b = s.appendBaseURL(k.b, c)
	}
	return k
}

func (k cacheKey) int(v int) cacheKey {
	k.b = append(strconv.AppendInt(k.b, int64(v), 10), '|')
	return k
}

func (k cacheKey) u64(v uint64) cacheKey {
	k.b = append(strconv.AppendUint(k.b, v, 10), '|')
	return k
}

func (k cacheKey) str(v string) cacheKey {
	k.b = append(append(k.b, v...), '|')
	return k
}

// filters adds the filters in a canonical form.
func (k cacheKey) filters(f *filters) cacheKey {
	k = k.int(f.season).int(f.matchday).int(f.head2head).str(f.venue).str(strings.Join(f.leagues, ","))
	if f.hasRange {
		k.b = f.start.AppendFormat(k.b, time.DateOnly)
		k.b = append(k.b, '.', '.')
		k.b = f.end.AppendFormat(k.b, time.DateOnly)
	}
	return k
}

// representationOf reads X-Response-Control. compressed is served only by
// fixture resources; elsewhere the full form is served, and the response
// header says so.
func representationOf(c *fiber.Ctx, r *request, fixtures bool) (representation, error) {
	v := bytes.TrimSpace(r.responseControl)
	var rep representation
	switch {
	case len(v) == 0 || equalFoldASCII(v, string(full)):
		rep = full
	case equalFoldASCII(v, string(minified)):
		rep = minified
	case equalFoldASCII(v, string(compressed)):
		rep = compressed
		if !fixtures {
			rep = full
		}
	default:
		return "", badRequest("X-Response-Control must be full, minified or compressed, got '%s'", strings.ToLower(string(v)))
	}
	c.Response().Header.SetCanonical(hResponseControl, []byte(rep))
	return rep, nil
}

// equalFoldASCII reports whether b is s (lower-case ASCII) in any case of
// its letters, without a lower-cased copy of b.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// pathID reads the {id} path parameter.
func pathID(c *fiber.Ctx, what string) (int, error) {
	raw := c.Params("id")
	id, err := strconv.Atoi(raw)
	if err != nil || id < 0 || !digits(raw) {
		return 0, badRequest("%s id must be an integer such as 42, got '%s'", what, raw)
	}
	return id, nil
}

// today is the UTC date of the snapshot's clock.
func today(snap readmodel.Snapshot) time.Time {
	y, m, d := snap.Now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// respond serves the cached rendering under key, rendering it on a miss,
// with ETag, conditional requests and gzip from the same cached bytes.
func (s *Server) respond(c *fiber.Ctx, key cacheKey, render func() (any, int)) error {
	// The next request builds its key in the buffer as grown by this one.
	key.r.key = key.b
	e, hit, err := s.cache.get(key.b, func() (*wire.Entry, error) {
		v, maxAge := render()
		return s.cache.encode(v, maxAge)
	})
	if err != nil {
		return err
	}
	// fasthttp writes the body after the handlers return: the hold on a
	// lent body is given up when it closes the request's user values,
	// once the response is written.
	if e.Lent() {
		c.Context().SetUserValue(heldKey, (*wire.Held)(e))
	}
	if hit {
		s.metrics.cacheHit.Inc()
	} else {
		s.metrics.cacheMiss.Inc()
	}
	vary := vVary
	if key.r.ver == v4 {
		// v4 has no X-Response-Control: one representation a resource,
		// and match lists with or without their goals.
		vary = vVaryToken
		if key.r.unfoldable {
			vary = vVaryUnfold
		}
	}
	return s.send(c, key.r, e, vContentType, vary)
}

// heldKey is the user value under which a request holds its entry.
var heldKey = &localKey{"entry"}

// send writes a rendered response with its ETag and Cache-Control: 304
// when If-None-Match has the ETag, the gzip form for clients that accept
// it. vary names the request headers the response depends on.
func (s *Server) send(c *fiber.Ctx, r *request, e *wire.Entry, contentType, vary []byte) error {
	h := &c.Response().Header
	h.SetContentTypeBytes(contentType)
	h.SetCanonical(hETag, e.ETag())
	h.SetCanonical(hCacheControl, e.CacheControl())
	h.SetCanonical(hVary, vary)
	if matchesETag(r.ifNoneMatch, e.ETag()) {
		c.Status(fiber.StatusNotModified)
		return nil
	}
	c.Status(e.Status())
	if acceptsGzip(r.acceptEncoding) {
		if gz := e.Gzipped(); gz != nil {
			h.SetCanonical(hContentEncoding, vGzip)
			wire.SetBytes(c.Context(), gz)
			return nil
		}
	}
	wire.SetBody(c.Context(), e, s.bodyFiles)
	return nil
}

// encode makes the entry of a rendered value. A value that writes its own
// JSON writes it straight into a buffer lent by the pool, of the class of
// the last such body: copying a body from a scratch buffer into the lent
// one, whose memory the cache last touched long ago, was a tenth of a
// miss's time in BenchmarkHandler. A body that outgrows the buffer, or
// that belongs to a smaller class, is copied into one of its own class
// (and one that is not pooled into its own allocation). Any other value
// goes through encoding/json.
func (rc *renderCache) encode(v any, maxAge int) (*wire.Entry, error) {
	if a, ok := v.(jsonAppender); ok {
		hint := int(rc.lastJSON.Load())
		if !wire.Pooled(hint) {
			buf := jsonBuffers.Get().(*[]byte)
			defer jsonBuffers.Put(buf)
			b := a.appendJSON((*buf)[:0])
			*buf = b
			rc.lastJSON.Store(int64(len(b)))
			return rc.bodies.Lend(fiber.StatusOK, b, cacheControlOf(maxAge)), nil
		}
		lent := rc.bodies.Take(hint)
		b := a.appendJSON(lent[:0])
		rc.lastJSON.Store(int64(len(b)))
		return rc.bodies.Adopt(fiber.StatusOK, lent, b, cacheControlOf(maxAge)), nil
	}
	body, err := jsonMarshal(v)
	if err != nil {
		return nil, err
	}
	return newEntry(fiber.StatusOK, body, maxAge), nil
}

var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func matchesETag(header, etag []byte) bool {
	for len(header) > 0 {
		var part []byte
		part, header, _ = bytes.Cut(header, []byte(","))
		part = bytes.TrimPrefix(bytes.TrimSpace(part), []byte("W/"))
		if bytes.Equal(part, etag) || string(part) == "*" {
			return true
		}
	}
	return false
}

func acceptsGzip(header []byte) bool {
	for len(header) > 0 {
		var part []byte
		part, header, _ = bytes.Cut(header, []byte(","))
		name, params, _ := bytes.Cut(bytes.TrimSpace(part), []byte(";"))
		if string(bytes.TrimSpace(name)) == "gzip" {
			return !zeroQuality(params)
		}
	}
	return false
}

// zeroQuality reports whether the parameters of an Accept-Encoding entry,
// spaces aside, are q=0 or q=0.0: the client refuses that encoding.
func zeroQuality(params []byte) bool {
	var buf [len("q=0.0")]byte
	n := 0
	for _, c := range params {
		if c == ' ' {
			continue
		}
		if n == len(buf) {
			return false
		}
		buf[n], n = c, n+1
	}
	return string(buf[:n]) == "q=0" || string(buf[:n]) == "q=0.0"
}

func queryEscape(s string) string { return url.QueryEscape(s) }
