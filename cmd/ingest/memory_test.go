package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// followerMemoryLimit is what deploy/k8s/follow.yaml gives the follower
// (limits.memory, also its GOMEMLIMIT): past it, the pod is killed.
const followerMemoryLimit = 512 << 20

// maxBytes is the follower's default --max-bytes.
const maxBytes = 32 << 20

// hostile serves the worst bodies a source can send the follower, each
// under /KIND/2025-26/en.1.json: "declared" a Content-Length of 2 GB,
// "endless" a chunked body that never ends, "bomb" a gzip body that
// inflates to 256 MiB, "full" a valid document of unknown length just
// under the limit (read whole, joined, parsed).
func hostile(t *testing.T) *httptest.Server {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 256 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	const doc = `{"name": "English Premier League 2025/26", "matches": []}`
	pad := bytes.Repeat([]byte(" "), 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		w.Header().Set("Content-Type", "application/json")
		switch kind {
		case "declared":
			w.Header().Set("Content-Length", strconv.Itoa(2<<30))
			for r.Context().Err() == nil {
				if _, err := w.Write(pad); err != nil {
					return
				}
			}
		case "endless":
			for r.Context().Err() == nil {
				if _, err := w.Write(pad); err != nil {
					return
				}
			}
		case "bomb":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb.Bytes())
		case "full":
			_, _ = w.Write([]byte(doc))
			for left := maxBytes - len(doc); left > 0; left -= len(pad) {
				if _, err := w.Write(pad[:min(left, len(pad))]); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFollowerMemoryUnderHostileSources: the real `ingest follow`, run
// as deploy/k8s/follow.yaml runs it (GOMEMLIMIT its memory limit,
// default --max-bytes and --concurrency), with every poll slot busy with
// the worst sources, stays under that limit: its peak resident size
// (VmHWM) is read from /proc after each source has been polled and
// refused twice.
func TestFollowerMemoryUnderHostileSources(t *testing.T) {
	natstest.SkipShort(t, "builds the ingest binary and reads hundreds of megabytes")
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc to read a peak resident size from")
	}
	bin := filepath.Join(t.TempDir(), "ingest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c := newCLI(t)
	src := hostile(t)
	feeds := map[string]string{"declared": "declared", "endless": "endless", "bomb": "bomb"}
	for i := range 4 {
		feeds[fmt.Sprintf("full%d", i)] = "full"
	}
	for name, kind := range feeds {
		c.ok("feed", "add", name, "--format", "openfootball", "--url", src.URL+"/"+kind+"/2025-26/en.1.json", "--every", "1s", "--create-teams")
	}
	log := &natstest.Buffer{}
	cmd := exec.Command(bin, "follow", "--admin-listen", "", "--lease", "1s", "--max-backoff", "2s", "--feed-allow", "127.0.0.1/32")
	cmd.Env = append(os.Environ(), "FD_NATS_URL="+c.srv.URL(), "GOMEMLIMIT="+strconv.Itoa(followerMemoryLimit))
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for name, kind := range feeds {
		want := `failures in a row:\s+[2-9]`
		if kind == "full" {
			want = `last result:\s+\w`
		}
		c.waitOutput(t, want, "feed", "show", name)
	}
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("peak resident size %d MiB, limit %d MiB", peak>>20, followerMemoryLimit>>20)
	if peak >= followerMemoryLimit {
		t.Errorf("peak resident size %d MiB, over the manifest's %d MiB", peak>>20, followerMemoryLimit>>20)
	}
	for _, want := range []string{"over the limit of 33554432 (--max-bytes): nothing read", "larger than the limit of 33554432 bytes"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in the follower's log", want)
		}
	}
}

// vmHWM is the peak resident size of process pid, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
