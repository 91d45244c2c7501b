package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestNewTokenWorksAtOnceOnEveryReplica: while two replicas are behind an
// import, a client added with the editor (as `ingest client add` does) is
// served by both at once, with the request right after AddClient returns:
// not refused as an unknown token until the replica reaches the client.
// Each round checks afterwards that the replica was indeed behind the
// client when it answered (it served less of the stream than the client's
// revision); the test needs both replicas seen behind at least once.
func TestNewTokenWorksAtOnceOnEveryReplica(t *testing.T) {
	// The lookup's time bound is generous: on a machine this loaded (the
	// race detector, an import, two replicas and NATS on two cores) one
	// read of the stream's leader, like the editor's own, takes up to a
	// second or so; TestTokenLookupIsBounded (internal/httpapi) tests the
	// bound itself.
	// And the rounds, all from this one address, each cause a lookup:
	// without the race detector the replicas keep up with the import so
	// well that it takes more rounds than a minute's budget of 30 to see
	// both behind (round 71 was refused 429 in make check).
	// TestTokenFloodIsBoundedPerAddress tests the budget itself.
	wait := []string{"--token-lookup-timeout", "10s", "--token-lookups-per-minute", "100000"}
	first := startReplica(t, "", wait...)
	replicas := []*replica{first, startReplica(t, first.nats, wait...)}
	s := replicas[0].store()
	ed := natstest.Editor(t, s)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	imported := make(chan error, 1)
	// Season after season until the rounds have seen enough: the test
	// stops the import then.
	var seasons [][]string
	for _, dir := range []string{"2015-16", "2016-17", "2017-18", "2018-19"} {
		seasons = append(seasons, natstest.Season(t, dir))
	}
	go func() {
		f := importer.Formats["openfootball"]
		var err error
		for _, files := range seasons {
			var paths []string
			if paths, err = f.Files(files); err == nil {
				err = importer.New(natstest.Editor(t, s), nil).Import(ctx, f, paths, importer.Options{})
			}
			if err != nil {
				break
			}
		}
		imported <- err
	}()

	behind := make([]int, len(replicas))
	seenBehind := func() bool {
		for _, n := range behind {
			if n == 0 {
				return false
			}
		}
		return true
	}
	rounds, done := 0, false
	for ; !done && !(seenBehind() && rounds >= 5); rounds++ {
		select {
		case err := <-imported:
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			done = true
		default:
		}
		token, ch, err := ed.AddClient(ctx, model.Client{Name: fmt.Sprintf("acme-%d", rounds), Tier: model.TierRegistered, PerMinute: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range replicas {
			resp := r.do("GET", "/v1/competitions", map[string]string{"X-Auth-Token": token})
			if resp.status != 200 || resp.header.Get("X-Authenticated-Client") != fmt.Sprintf("acme-%d", rounds) {
				t.Errorf("round %d, replica %d: %d %s (X-Authenticated-Client %q), want 200 for the client added\n%s", rounds, i, resp.status, resp.body,
					resp.header.Get("X-Authenticated-Client"), r.logs.String())
			}
			if served := r.metric("fd_stream_served_sequence"); served < float64(ch.Seq) {
				behind[i]++
			}
		}
	}
	for i, r := range replicas {
		t.Logf("replica %d: behind the client it served in %d of %d rounds; lookups found %v, unknown %v, failed %v", i, behind[i], rounds,
			r.metric(`fd_token_lookups_total{result="found"}`), r.metric(`fd_token_lookups_total{result="unknown"}`), r.metric(`fd_token_lookups_total{result="error"}`))
		// The tokens' pointers are no entities of the read model, and no
		// rejected events either.
		if n := r.metric("fd_events_rejected_total"); n != 0 {
			t.Errorf("replica %d rejected %v events\n%s", i, n, r.logs.String())
		}
	}
	if !seenBehind() {
		t.Fatalf("a replica was never behind the import (rounds behind %v): the test showed nothing", behind)
	}
	if !done {
		cancel()
		<-imported
	}
}
