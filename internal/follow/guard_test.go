package follow_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestFollowAddressGuard: a feed cannot point the follower inward. The
// follower allows 127.0.0.1 (its fakes) and one folder of files; an
// inner service (a replica's admin port, the NATS monitor) listens on
// 127.0.0.2, which it does not allow. Every row is refused with its
// reason, and the inner service never sees a request.
func TestFollowAddressGuard(t *testing.T) {
	var innerHits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address to stand for an inner service: %v", err)
	}
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		innerHits.Add(1)
		w.Write([]byte("fd_secret_metric 1\n"))
	}))
	inner.Listener.Close()
	inner.Listener = ln
	inner.Start()
	defer inner.Close()
	const metadata = "http://169.254.169.254/latest/meta-data/"
	redirect := http.NewServeMux()
	for path, to := range map[string]string{"/to-metadata": metadata, "/to-inner": inner.URL + "/metrics", "/to-file": "file:///etc/passwd"} {
		redirect.Handle(path, http.RedirectHandler(to, http.StatusFound))
	}
	redirects := httptest.NewServer(redirect)
	defer redirects.Close()

	w := newWorld(t)
	files := t.TempDir()
	w.src.put("ok/"+seasonFile, w.src.original())
	if err := os.MkdirAll(filepath.Join(files, "2025-26"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(files, seasonFile), w.src.original(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(files, "2025-26", "link.json")); err != nil {
		t.Fatal(err)
	}
	w.start("a", func(c *follow.Config) { c.Files = []string{files} })

	tests := []struct {
		name, url string
		err       string // "": the file is read and written
	}{
		{"cloud metadata", metadata, "address 169.254.169.254 is not public and not in --feed-allow (link local"},
		{"an inner port", inner.URL + "/metrics", "address 127.0.0.2 is not public and not in --feed-allow (loopback"},
		{"a redirect to cloud metadata", redirects.URL + "/to-metadata", "redirect to " + metadata + ": host 169.254.169.254"},
		{"a redirect to an inner port", redirects.URL + "/to-inner", "not public and not in --feed-allow (loopback"},
		{"a redirect to a file", redirects.URL + "/to-file", `redirect to file:///etc/passwd: scheme "file"`},
		{"a file outside the folders", "file:///etc/passwd", "/etc/passwd is not under a folder given to --feed-files"},
		{"the process's environment", "file:///proc/self/environ", "is not under a folder given to --feed-files"},
		{"a link out of the folder", "file://" + filepath.Join(files, "2025-26", "link.json"), "/etc/passwd is not under a folder given to --feed-files"},
		{"a .. out of the folder", "file://" + files + "/../../../../../../etc/passwd", "/etc/passwd is not under a folder given to --feed-files"},
		{"a file in the folder", "file://" + filepath.Join(files, seasonFile), ""},
		{"an allowed host", w.src.url("ok/" + seasonFile), ""},
	}
	ed := natstest.Editor(t, w.store)
	feeds := make([]model.Feed, len(tests))
	for i, tt := range tests {
		name := strings.ReplaceAll(tt.name, " ", "-")
		name = strings.NewReplacer("'", "", ".", "dot").Replace(name)
		if _, err := ed.AddFeed(w.ctx, model.Feed{Name: name, Format: "openfootball", URL: tt.url, EverySeconds: 1, League: "PL", Season: 2025, CreateTeams: true}); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if feeds[i], err = ed.Feed(w.ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := w.waitStatusIn(t, feeds[i], "a poll", func(st follow.Status) bool { return !st.LastFetch.IsZero() })
			switch {
			// The feeds poll every second: by now a later poll of a file
			// read may have found it unchanged (a 304 from the host).
			case tt.err == "" && (st.LastSuccess.IsZero() || st.Failures != 0 || st.Matches != 380):
				t.Errorf("%s: status %+v, want the file read, 380 matches", tt.url, st)
			case tt.err != "" && (st.Result != follow.ResultError || !strings.Contains(st.LastError, tt.err)):
				t.Errorf("%s: result %s, error %q; want refused with %q", tt.url, st.Result, st.LastError, tt.err)
			}
		})
	}
	// A poll's status is written after its fetch: a request that got
	// through has been counted.
	if n := innerHits.Load(); n != 0 {
		t.Errorf("the inner service got %d requests, want none", n)
	}
}
