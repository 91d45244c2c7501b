package httpapi

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// Cache-Control lifetimes: data of a season that is over changes only by
// correction; everything current may change any second.
const (
	maxAgeLive     = 10
	maxAgeFinished = 3600
	maxAgeTeams    = 300
)

// key builds a cache key from its parts. The version of the data a
// response depends on is always one of them.
func key(parts ...string) string { return strings.Join(parts, "|") }

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// representationOf reads X-Response-Control. compressed is served only by
// fixture resources; elsewhere the full form is served, and the response
// header says so.
func representationOf(c *fiber.Ctx, fixtures bool) (representation, error) {
	v := strings.ToLower(strings.TrimSpace(string(c.Request().Header.Peek("X-Response-Control"))))
	var rep representation
	switch v {
	case "", "full":
		rep = full
	case "minified":
		rep = minified
	case "compressed":
		rep = compressed
		if !fixtures {
			rep = full
		}
	default:
		return "", badRequest("X-Response-Control must be full, minified or compressed, got '%s'", v)
	}
	c.Set("X-Response-Control", string(rep))
	return rep, nil
}

// pathID reads the {id} path parameter.
func pathID(c *fiber.Ctx, what string) (int, error) {
	raw := c.Params("id")
	id, err := strconv.Atoi(raw)
	if err != nil || id < 0 || !digitsRE.MatchString(raw) {
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
// Nothing from the request is kept: the key is a new string.
func (s *Server) respond(c *fiber.Ctx, key string, render func() (any, int)) error {
	e, hit, err := s.cache.get(key, func() (*entry, error) {
		v, maxAge := render()
		body, err := jsonMarshal(v)
		if err != nil {
			return nil, err
		}
		return newEntry(fiber.StatusOK, body, maxAge), nil
	})
	if err != nil {
		return err
	}
	if hit {
		s.metrics.cache.WithLabelValues("hit").Inc()
	} else {
		s.metrics.cache.WithLabelValues("miss").Inc()
	}
	h := &c.Response().Header
	h.Set(fiber.HeaderContentType, contentTypeJSON)
	h.Set(fiber.HeaderETag, e.etag)
	h.Set(fiber.HeaderCacheControl, "max-age="+strconv.Itoa(e.maxAge))
	h.Set(fiber.HeaderVary, "Accept-Encoding, X-Response-Control, X-Auth-Token")
	if matchesETag(c.Request().Header.Peek(fiber.HeaderIfNoneMatch), e.etag) {
		c.Status(fiber.StatusNotModified)
		return nil
	}
	c.Status(e.status)
	if acceptsGzip(c.Request().Header.Peek(fiber.HeaderAcceptEncoding)) {
		if gz := e.gzipped(); gz != nil {
			h.Set(fiber.HeaderContentEncoding, "gzip")
			c.Response().SetBodyRaw(gz)
			return nil
		}
	}
	c.Response().SetBodyRaw(e.body)
	return nil
}

func matchesETag(header []byte, etag string) bool {
	if len(header) == 0 {
		return false
	}
	for _, part := range bytes.Split(header, []byte(",")) {
		part = bytes.TrimSpace(part)
		part = bytes.TrimPrefix(part, []byte("W/"))
		if string(part) == etag || string(part) == "*" {
			return true
		}
	}
	return false
}

func acceptsGzip(header []byte) bool {
	for _, part := range bytes.Split(header, []byte(",")) {
		name, params, _ := bytes.Cut(bytes.TrimSpace(part), []byte(";"))
		if string(bytes.TrimSpace(name)) != "gzip" {
			continue
		}
		params = bytes.ReplaceAll(params, []byte(" "), nil)
		return !bytes.Equal(params, []byte("q=0")) && !bytes.Equal(params, []byte("q=0.0"))
	}
	return false
}

func queryEscape(s string) string { return url.QueryEscape(s) }
