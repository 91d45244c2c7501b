package wire

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/wire/wiretest"
	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"
)

// serve serves entries by path with fasthttp, configured as the API's
// server is, on the connections of a Listener, and returns its address.
// Large bodies go from memory files.
func serve(t *testing.T, entries map[string]*Entry) string {
	t.Helper()
	return serveFrom(t, entries, nil)
}

// serveFrom is serve with the large bodies' files in b.
func serveFrom(t *testing.T, entries map[string]*Entry, b *Bodies) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{WriteBufferSize: WriteBuffer, Handler: func(ctx *fasthttp.RequestCtx) {
		e, ok := entries[string(ctx.Path())]
		if !ok {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		ctx.SetStatusCode(e.Status())
		SetBody(ctx, e, b)
	}}
	go func() { _ = srv.Serve(Listener{Listener: ln}) }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ln.Addr().String()
}

// get asks the server at addr for path on a connection of its own, and
// returns the body.
func get(t *testing.T, addr, path string) []byte {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := client.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
	}
	return body
}

// TestFileBodyToOtherWriters: a reader or writer other than fasthttp's
// connection writer (fasthttp's Body copies into a byte buffer) gets the
// body from memory, from where earlier reads stopped.
func TestFileBodyToOtherWriters(t *testing.T) {
	e := NewEntry(200, wiretest.Body(2*SendfileMin), maxAge10)
	if e.bodyFile(nil) < 0 {
		t.Fatal("no memory file")
	}
	tests := []struct {
		name string
		read func(b *fileBody) ([]byte, error)
	}{
		{"WriteTo", func(b *fileBody) ([]byte, error) {
			var buf bytes.Buffer
			n, err := b.WriteTo(&buf)
			if n != int64(buf.Len()) {
				err = fmt.Errorf("WriteTo counted %d bytes, wrote %d", n, buf.Len())
			}
			return buf.Bytes(), err
		}},
		{"Read", func(b *fileBody) ([]byte, error) { return io.ReadAll(b) }},
		{"Read then WriteTo", func(b *fileBody) ([]byte, error) {
			head := make([]byte, 1000)
			if _, err := io.ReadFull(b, head); err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			_, err := b.WriteTo(&buf)
			return append(head, buf.Bytes()...), err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read(&fileBody{e: e})
			if err != nil || !bytes.Equal(got, e.body) {
				t.Errorf("%d bytes (first difference at %d), %v; want the %d of the body", len(got), wiretest.FirstDiff(got, e.body), err, len(e.body))
			}
		})
	}
}

// TestMemoryFilesLimitedAndClosed: past bodyFilesMax open memory files a
// large body is copied from memory, and an entry's memory file is closed
// once the entry is collected.
func TestMemoryFilesLimitedAndClosed(t *testing.T) {
	const size = 2*SendfileMin + 5
	over := NewEntry(200, wiretest.Body(size), maxAge10)
	addr := serve(t, map[string]*Entry{"/over": over})
	defer func(n int64) { bodyFilesMax = n }(bodyFilesMax)
	// Entries of earlier tests are garbage: their files must be closed
	// before this test counts, not while it does. over has none yet.
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		runtime.GC()
		if n := bodyFiles.Load(); n != 0 {
			return fmt.Errorf("%d memory files open while no entry is reachable", n)
		}
		return nil
	})

	a := NewEntry(200, wiretest.Body(SendfileMin), maxAge10)
	bodyFilesMax = bodyFiles.Load() + 1
	if a.bodyFile(nil) < 0 {
		t.Fatal("no memory file under the limit")
	}
	var st unix.Stat_t
	if err := unix.Fstat(a.fd, &st); err != nil {
		t.Fatal(err)
	}
	fd, ino := a.fd, st.Ino

	if body := get(t, addr, "/over"); !bytes.Equal(body, over.Body()) {
		t.Errorf("over the limit: %d bytes (first difference at %d), want the %d of the body", len(body), wiretest.FirstDiff(body, over.Body()), size)
	}
	if over.InFile(nil) {
		t.Error("over the limit: memory file made")
	}

	// a is not used from here on: the collector may take it.
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		runtime.GC()
		if err := unix.Fstat(fd, &st); err == nil && st.Ino == ino {
			return fmt.Errorf("descriptor %d still the entry's memory file (inode %d) after the entry became garbage", fd, ino)
		}
		return nil
	})
}
