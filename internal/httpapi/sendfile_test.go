package httpapi

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// TestLargeBodySentFromMemoryFile serves a body above sendfileMin through a
// real listener: the same bytes and length on every request, none on HEAD,
// 304 on its ETag, and no descriptor left open by the responses.
func TestLargeBodySentFromMemoryFile(t *testing.T) {
	s, _ := newTestServer(t, true, Options{})
	big := strings.Repeat("0123456789", sendfileMin/10+100)
	want, _ := json.Marshal(map[string]string{"big": big})
	s.App().Get("/big", func(c *fiber.Ctx) error {
		return s.respond(c, cacheKey{[]byte("big")}, func() (any, int) { return map[string]string{"big": big}, 10 })
	})
	addr := listen(t, s)
	fds := func() int { d, _ := os.ReadDir("/proc/self/fd"); return len(d) }
	client := &fasthttp.HostClient{Addr: addr}
	var etag string
	before := 0
	for i := range 200 {
		if i == 10 {
			before = fds()
		}
		code, body, err := client.Get(nil, "http://"+addr+"/big")
		if err != nil || code != 200 || !bytes.Equal(body, want) {
			t.Fatalf("request %d: %d, %d bytes (want %d), %v", i, code, len(body), len(want), err)
		}
	}
	if after := fds(); after > before+2 {
		t.Errorf("%d descriptors open after 190 more responses, %d before", after, before)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + addr + "/big")
	req.Header.SetMethod(fasthttp.MethodHead)
	if err := client.Do(req, resp); err != nil || resp.StatusCode() != 200 || resp.Header.ContentLength() != len(want) || len(resp.Body()) != 0 {
		t.Fatalf("HEAD: %d, length %d, %d body bytes, %v", resp.StatusCode(), resp.Header.ContentLength(), len(resp.Body()), err)
	}
	etag = string(resp.Header.Peek("Etag"))
	req.Header.SetMethod(fasthttp.MethodGet)
	req.Header.Set("If-None-Match", etag)
	if err := client.Do(req, resp); err != nil || resp.StatusCode() != fasthttp.StatusNotModified {
		t.Fatalf("If-None-Match %s: %d, %v", etag, resp.StatusCode(), err)
	}
}
