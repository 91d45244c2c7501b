package follow

import (
	"context"
	"io"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/livefake"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per iteration since from: the
// follower's, the NATS server's and the fake's, all in this process; the
// baseline's carries the fake's too.
func reportCPU(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-from)/float64(b.N), "cpu-ns/op")
}

// liveBench is a follower of an OpenLigaDB feed of the fake, its season
// imported, matchday 27 in play.
func liveBench(b *testing.B) (*Follower, *held, *livefake.OpenLigaDB) {
	b.Helper()
	// natstest provisions through this package: the server is started
	// here as it does.
	body, err := os.ReadFile("../../../shared/spec/openligadb/getmatchdata-bl2-2023.live-2024-03-30T1332.json")
	if err != nil {
		b.Skipf("the recorded OpenLigaDB season (../shared/spec): %v", err)
	}
	fk, err := livefake.NewOpenLigaDB(body, 1<<30, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = fk.Close() })
	srv, err := natsembed.Start(natsembed.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Stop)
	ctx := context.Background()
	nc, err := events.Dial{URL: srv.URL(), Name: "provision"}.Conn()
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	if _, err := events.Provision(ctx, nc, events.StreamConfig{}); err != nil {
		b.Fatal(err)
	}
	store, err := events.Connect(ctx, events.Dial{URL: srv.URL(), Name: "bench"}, events.StreamConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(store.Close)
	if _, err := events.ProvisionFeeds(ctx, store.Conn(), 1); err != nil {
		b.Fatal(err)
	}
	state, err := Open(ctx, store.Conn())
	if err != nil {
		b.Fatal(err)
	}
	ed := &editor.Editor{Store: store, Meta: events.Meta{Editor: "bench"}}
	if _, err := ed.AddFeed(ctx, model.Feed{Name: "bl2", Format: "openligadb", URL: fk.URL, SourceLeague: "bl2", Season: 2023, League: "BL2",
		EverySeconds: 3600, CreateTeams: true, UpstreamPerDay: 10_000_000}); err != nil {
		b.Fatal(err)
	}
	fd, err := ed.Feed(ctx, "bl2")
	if err != nil {
		b.Fatal(err)
	}
	allow, err := netguard.ParseAllow("127.0.0.1/32")
	if err != nil {
		b.Fatal(err)
	}
	f, err := New(Config{Store: store, State: state, Holder: "bench", Allow: allow})
	if err != nil {
		b.Fatal(err)
	}
	h := &held{feed: fd}
	f.poll(ctx, h)
	st, _, err := state.Status(ctx, fd.Name, fd.Created)
	if err != nil || st.Result != ResultChanged || st.Live == nil || st.Live.Matchday == 0 {
		b.Fatalf("the season's import: %+v %v", st, err)
	}
	return f, h, fk
}

// BenchmarkLivePoll measures a poll of a live OpenLigaDB feed while its
// matchday is in play, in CPU time per poll, against a plain GET of the
// same bytes: unchanged (one "last changed" call, nothing read), and
// changed (that call, the matchday's nine matches fetched, parsed and
// written, nothing different: nothing published).
func BenchmarkLivePoll(b *testing.B) {
	ctx := context.Background()
	b.Run("unchanged", func(b *testing.B) {
		f, h, _ := liveBench(b)
		from := cpuTime(b)
		b.ResetTimer()
		for range b.N {
			f.poll(ctx, h)
		}
		reportCPU(b, from)
	})
	b.Run("changed", func(b *testing.B) {
		f, h, fk := liveBench(b)
		from := cpuTime(b)
		b.ResetTimer()
		for range b.N {
			// The matchday's change date moves, its data does not.
			if _, err := fk.Edit(67178, func(map[string]any) {}); err != nil {
				b.Fatal(err)
			}
			f.poll(ctx, h)
		}
		reportCPU(b, from)
	})
	b.Run("plain-get-of-the-matchday", func(b *testing.B) {
		_, _, fk := liveBench(b)
		from := cpuTime(b)
		b.ResetTimer()
		for range b.N {
			resp, err := http.Get(fk.URL + "/getmatchdata/bl2/2023/27")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
		reportCPU(b, from)
	})
}
