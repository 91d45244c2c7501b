package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/internal/wire/wiretest"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"
)

// sizedServer serves GET /size/N: a cached body of exactly N bytes.
func sizedServer(t *testing.T) (*Server, string) {
	t.Helper()
	return sizedServerWith(t, Options{})
}

func sizedServerWith(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s, _ := newTestServer(t, true, opts)
	s.App().Get("/size/:n", func(c *fiber.Ctx) error {
		n, err := strconv.Atoi(c.Params("n"))
		if err != nil {
			return badRequest("size %q", c.Params("n"))
		}
		return s.respond(c, cacheKey{requestOf(c), []byte("size|" + strconv.Itoa(n))}, func() (any, int) { return rawJSON(wiretest.Body(n)), 10 })
	})
	return s, listen(t, s)
}

// rawJSON is a rendered value that is already JSON.
type rawJSON []byte

func (r rawJSON) appendJSON(b []byte) []byte { return append(b, r...) }

// exchange writes a request on conn and reads its response with the body.
func exchange(t *testing.T, conn net.Conn, br *bufio.Reader, method, path string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req := method + " " + path + " HTTP/1.1\r\nHost: test\r\n"
	for i := 0; i+1 < len(hdr); i += 2 {
		req += hdr[i] + ": " + hdr[i+1] + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, path, err)
	}
	return resp, body
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	return conn, bufio.NewReader(conn)
}

func openFDs(t *testing.T) int {
	t.Helper()
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(d)
}

// TestBodyBytesAroundSendfileMin: below wire.GatherMin a body is copied from
// memory behind its headers, from it on it leaves with them in one writev,
// from wire.SendfileMin on it is sent from the entry's file, in the body
// directory or in memory; either way every response on one keep-alive
// connection carries the same bytes, a HEAD between them leaves nothing on
// the connection, the ETag gives 304, gzip is the same body compressed, and
// no response leaves a descriptor open.
func TestBodyBytesAroundSendfileMin(t *testing.T) {
	for _, store := range []struct{ name, dir string }{{"memory", ""}, {"directory", t.TempDir()}} {
		t.Run(store.name, func(t *testing.T) { bodyBytesAroundSendfileMin(t, Options{BodyDir: store.dir}) })
	}
}

func bodyBytesAroundSendfileMin(t *testing.T, opts Options) {
	s, addr := sizedServerWith(t, opts)
	tests := []struct {
		size     int
		fromFile bool
	}{
		{1000, false},
		{wire.GatherMin - 1, false},
		{wire.GatherMin, false},
		{wire.SendfileMin - 1, false},
		{wire.SendfileMin, true},
		{wire.SendfileMin + 1, true},
		{4*wire.SendfileMin + 7, true},
		{3 << 20, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.size), func(t *testing.T) {
			want := wiretest.Body(tt.size)
			path := "/size/" + strconv.Itoa(tt.size)
			conn, br := dial(t, addr)
			var fds int
			for i, method := range []string{"GET", "HEAD", "GET", "GET", "HEAD", "GET", "GET", "GET"} {
				if i == 2 {
					// The cache has taken the entry (ristretto applies its
					// sets in the background): a later request finds it
					// rather than rendering it, and a memory file, anew.
					s.cache.c.Wait()
					fds = openFDs(t)
				}
				resp, body := exchange(t, conn, br, method, path)
				if resp.StatusCode != 200 || resp.ContentLength != int64(tt.size) {
					t.Fatalf("%s #%d: %d, Content-Length %d, want 200 and %d", method, i, resp.StatusCode, resp.ContentLength, tt.size)
				}
				if method == "HEAD" {
					if len(body) != 0 {
						t.Fatalf("HEAD #%d: %d body bytes", i, len(body))
					}
					continue
				}
				if !bytes.Equal(body, want) {
					t.Fatalf("GET #%d: %d bytes differ from the %d rendered (first at %d)", i, len(body), len(want), wiretest.FirstDiff(body, want))
				}
			}
			if after := openFDs(t); after > fds {
				t.Errorf("%d descriptors open after six more responses, %d before", after, fds)
			}
			e, ok := s.cache.c.Get([]byte("size|" + strconv.Itoa(tt.size)))
			if !ok {
				t.Fatal("entry not cached")
			}
			if got := e.InFile(s.bodyFiles); got != tt.fromFile {
				t.Errorf("body in a file: %v, want %v", got, tt.fromFile)
			}
			resp, _ := exchange(t, conn, br, "GET", path)
			etag := resp.Header.Get("ETag")
			if resp, body := exchange(t, conn, br, "GET", path, "If-None-Match", etag); resp.StatusCode != 304 || len(body) != 0 {
				t.Errorf("If-None-Match %s: %d with %d body bytes", etag, resp.StatusCode, len(body))
			}
			resp, body := exchange(t, conn, br, "GET", path, "Accept-Encoding", "gzip")
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("Accept-Encoding gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, want) {
				t.Errorf("gzip body: %d bytes, %v; want the %d rendered", len(plain), err, len(want))
			}
			// The connection is still in step after all of it.
			if _, body := exchange(t, conn, br, "GET", path); !bytes.Equal(body, want) {
				t.Errorf("last GET: %d bytes, want the %d rendered", len(body), len(want))
			}
		})
	}
}

// TestPipelinedResponsesAroundGatherMin: requests sent in one write are
// answered in order, with the right bytes, whichever way each body leaves:
// fasthttp flushes the responses to pipelined requests together, so what a
// connection holds for a gathered body may start with earlier responses,
// and a HEAD's headers are written while nothing is held. Gzip forms from
// GatherMin are gathered too, whatever their size (the 200,000-byte
// body's is about 120 KB, the 40,000-byte one's about 24 KB).
func TestPipelinedResponsesAroundGatherMin(t *testing.T) {
	_, addr := sizedServer(t)
	reqs := []struct {
		method string
		size   int
		gzip   bool
	}{
		{"GET", wire.GatherMin + 5, false}, {"HEAD", wire.GatherMin + 5, false}, {"GET", 1000, false}, {"GET", 40_000, true},
		{"GET", wire.GatherMin + 5, false}, {"GET", 1000, false}, {"GET", wire.SendfileMin + 3, false}, {"HEAD", 1000, false},
		{"GET", 200_000, true}, {"HEAD", 40_000, true}, {"GET", wire.GatherMin + 5, false}, {"GET", 1000, true},
	}
	conn, br := dial(t, addr)
	// Twice: the first round renders every body, the second finds them
	// cached.
	for round := range 2 {
		var all strings.Builder
		for _, r := range reqs {
			accept := ""
			if r.gzip {
				accept = "Accept-Encoding: gzip\r\n"
			}
			fmt.Fprintf(&all, "%s /size/%d HTTP/1.1\r\nHost: test\r\n%s\r\n", r.method, r.size, accept)
		}
		if _, err := io.WriteString(conn, all.String()); err != nil {
			t.Fatal(err)
		}
		for i, r := range reqs {
			resp, err := http.ReadResponse(br, &http.Request{Method: r.method})
			if err != nil {
				t.Fatalf("round %d, response %d (%s %d): %v", round, i, r.method, r.size, err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("round %d, response %d: body: %v", round, i, err)
			}
			if enc := resp.Header.Get("Content-Encoding"); (enc == "gzip") != r.gzip {
				t.Fatalf("round %d, response %d (%s %d, gzip %v): Content-Encoding %q", round, i, r.method, r.size, r.gzip, enc)
			}
			// A gzip form's length is what was sent; a HEAD of one is
			// not checked for it.
			length, checkLength := int64(r.size), r.method == "GET" || !r.gzip
			if r.gzip {
				length = int64(len(body))
			}
			if r.gzip && r.method == "GET" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("round %d, response %d: gzip: %v", round, i, err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("round %d, response %d: gzip: %v", round, i, err)
				}
			}
			want := wiretest.Body(r.size)
			if r.method == "HEAD" {
				want = nil
			}
			if resp.StatusCode != 200 || (checkLength && resp.ContentLength != length) || !bytes.Equal(body, want) {
				t.Fatalf("round %d, response %d (%s %d, gzip %v): %d, Content-Length %d, %d body bytes (first difference at %d)",
					round, i, r.method, r.size, r.gzip, resp.StatusCode, resp.ContentLength, len(body), wiretest.FirstDiff(body, want))
			}
		}
	}
}

// TestConcurrentResponsesFromOneEntry: many connections at once send one
// entry's memory file, each at its own offset.
func TestConcurrentResponsesFromOneEntry(t *testing.T) {
	_, addr := sizedServer(t)
	const size = 5*wire.SendfileMin + 3
	getSizes(t, addr, 16, 25, 30*time.Second, func(int, int) int { return size })
}

// TestSlowReaderWhileEntryIsEvicted: a client that reads nothing for a
// while fills the socket buffers, so sendfile sends part of the body and
// then waits for the socket on Go's poller. Meanwhile the entry leaves the
// cache and the garbage collector runs: the response holds the entry, so
// the memory file stays open and the rest of the body arrives intact.
func TestSlowReaderWhileEntryIsEvicted(t *testing.T) {
	s, addr := sizedServer(t)
	const size = 16 << 20
	want := wiretest.Body(size)
	path := "/size/" + strconv.Itoa(size)
	conn, br := dial(t, addr)
	if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The send is waiting for the client once the goroutine sending the
	// body is parked on the poller inside the sendfile loop.
	natstest.CheckFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		if waiting := stacksWith("[IO wait", "wire.(*fileBody).WriteTo", "internal/poll.(*FD).RawWrite"); len(waiting) != 1 {
			return fmt.Errorf("%d sends of the body waiting for the socket, want 1; the client holds %d bytes unread of %d; the sending goroutines:\n%s",
				len(waiting), inQueue(t, conn.(*net.TCPConn)), size, strings.Join(stacksWith("wire.(*fileBody).WriteTo"), "\n"))
		}
		return nil
	})
	s.cache.c.Clear()
	for range 3 {
		runtime.GC()
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(body, want) {
		t.Fatalf("%d bytes (first difference at %d), %v; want the %d rendered", len(body), wiretest.FirstDiff(body, want), err, size)
	}
}

// inQueue is the number of bytes the kernel holds for conn to read.
func inQueue(t *testing.T, conn *net.TCPConn) int {
	t.Helper()
	rc, err := conn.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var ioErr error
	if err := rc.Control(func(fd uintptr) { n, ioErr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil || ioErr != nil {
		t.Fatal(err, ioErr)
	}
	return n
}

// stacksWith returns the stacks, as runtime.Stack writes them, of the
// goroutines whose stack (with its header, which says what a parked
// goroutine waits for) contains every one of parts.
func stacksWith(parts ...string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var found []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(g, p) }) {
			found = append(found, g)
		}
	}
	return found
}

// TestClientGoneMidBody: a client that closes its connection part way
// through a body ends that response with an error; the server closes the
// connection, keeps no descriptor for it and serves the next client the
// whole body from the same memory file.
func TestClientGoneMidBody(t *testing.T) {
	_, addr := sizedServer(t)
	const size = 16 << 20
	want := wiretest.Body(size)
	path := "/size/" + strconv.Itoa(size)
	conn, br := dial(t, addr)
	exchange(t, conn, br, "GET", path) // caches the entry and opens its memory file
	before := openFDs(t)
	for range 5 {
		c, r := dial(t, addr)
		if err := c.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(r, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		// Unread data makes close send a reset: the server's next
		// sendfile fails rather than filling a buffer nobody reads.
		c.Close()
	}
	// The five client ends are closed too; the server's ends must be.
	natstest.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if after := openFDs(t); after > before {
			return fmt.Errorf("%d descriptors open after five abandoned responses, %d before", after, before)
		}
		return nil
	})
	if _, body := exchange(t, conn, br, "GET", path); !bytes.Equal(body, want) {
		t.Errorf("after the abandoned responses: %d bytes (first difference at %d), want the %d rendered", len(body), wiretest.FirstDiff(body, want), size)
	}
}

// TestLargeBodyWithoutTCPConn: where the connection is not a plain TCP
// connection (TLS, Fiber's in-memory test connection) the bytes must pass
// through it, so the body is copied from memory.
func TestLargeBodyWithoutTCPConn(t *testing.T) {
	s, _ := sizedServer(t)
	const size = 3*wire.SendfileMin + 1
	want := wiretest.Body(size)
	path := "/size/" + strconv.Itoa(size)

	resp, err := s.App().Test(httptest.NewRequest("GET", path, nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	if body, err := io.ReadAll(resp.Body); err != nil || !bytes.Equal(body, want) {
		t.Errorf("in-memory connection: %d bytes, %v; want the %d rendered", len(body), err, size)
	}

	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	for i := range 3 {
		resp, err := client.Get("https://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("TLS, response %d: %d bytes, %v; want the %d rendered", i, len(body), err, size)
		}
	}
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestLentBodiesUnderEviction: with a cache of 1 MiB, bodies of sizes the
// pool lends are evicted and their buffers recycled while other
// connections ask for them again: every response still carries its own
// body, whole, with the ETag of those bytes, and buffers are recycled.
func TestLentBodiesUnderEviction(t *testing.T) {
	s, addr := sizedServerWith(t, Options{CacheBytes: 1 << 20})
	sizes := make([]int, 200)
	for i := range sizes {
		sizes[i] = 4000 + 97*i // 4 to 23 KB: lent, copied to the socket
	}
	rands := make([]*mrand.Rand, 8)
	for c := range rands {
		rands[c] = mrand.New(mrand.NewPCG(uint64(c), 2))
	}
	getSizes(t, addr, 8, 300, time.Minute, func(c, _ int) int { return sizes[rands[c].IntN(len(sizes))] })
	if s.cache.bodies.Free() == 0 {
		t.Error("no body went back to the pool: nothing was recycled")
	}
}

// TestLentBodyHeldUntilWritten: fasthttp writes a body after the handlers
// have returned. Between the two the entry may leave the cache and its
// class of buffers be handed to other bodies: the response's hold keeps
// its buffer out of the pool until fasthttp closes the request's user
// values, which it does once the response is written.
func TestLentBodyHeldUntilWritten(t *testing.T) {
	s, _ := sizedServer(t)
	handler := s.App().Handler()
	const size = 10_079
	want := wiretest.Body(size)
	var rc fasthttp.RequestCtx
	rc.Request.Header.SetMethod(fasthttp.MethodGet)
	rc.Request.SetRequestURI("/size/" + strconv.Itoa(size))
	rc.Request.Header.SetHost("test")
	handler(&rc)
	s.cache.c.Wait()
	s.cache.c.Clear()
	// Whatever the pool has of this class is taken and written over.
	for range 4 {
		b := s.cache.bodies.Take(size)
		for i := range b {
			b[i] = '!'
		}
	}
	if got := rc.Response.Body(); !bytes.Equal(got, want) {
		t.Fatalf("body changed before it was written: first difference at %d", wiretest.FirstDiff(got, want))
	}
	rc.ResetUserValues()
	if s.cache.bodies.Free() == 0 {
		t.Error("the body did not go back to the pool once written and out of the cache")
	}
}

// getSizes has clients connections at once each ask, one request after
// another on its own keep-alive connection, for requests bodies of the
// sizes size(client, i) gives, and fails the test for every response whose
// body is not that size's whole or whose ETag is not that body's.
func getSizes(t *testing.T, addr string, clients, requests int, timeout time.Duration, size func(client, i int) int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(timeout))
			br := bufio.NewReader(conn)
			for i := range requests {
				n := size(c, i)
				if _, err := io.WriteString(conn, "GET /size/"+strconv.Itoa(n)+" HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
					errs <- err
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				want := wiretest.Body(n)
				if err != nil || !bytes.Equal(body, want) {
					errs <- fmt.Errorf("client %d, response %d, size %d: %d bytes (first difference at %d), %v", c, i, n, len(body), wiretest.FirstDiff(body, want), err)
					return
				}
				if etag := resp.Header.Get("ETag"); etag != string(newEntry(200, want, 10).ETag()) {
					errs <- fmt.Errorf("client %d, response %d, size %d: ETag %s is not the body's", c, i, n, etag)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
