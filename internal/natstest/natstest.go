// Package natstest gives tests a real JetStream server: embedded in-process,
// on a random loopback port, with its storage in the test's temp dir.
package natstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MustStart starts a server that stops when the test ends.
func MustStart(tb testing.TB) *natsembed.Server {
	tb.Helper()
	srv, err := natsembed.Start(natsembed.Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("start embedded nats: %v", err)
	}
	tb.Cleanup(srv.Stop)
	return srv
}

// MustOpen connects a new store to srv, closed when the test ends.
func MustOpen(tb testing.TB, srv *natsembed.Server) *events.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := events.Connect(ctx, srv.URL(), tb.Name(), events.StreamConfig{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// RawPublish is the baseline of the publishing benchmarks: it starts a
// fresh server with the stream, then async-publishes n copies of a
// realistic fixture body, one subject each, with a bounded window, and
// returns the time the publishing took.
func RawPublish(tb testing.TB, n int) time.Duration {
	tb.Helper()
	srv := MustStart(tb)
	MustOpen(tb, srv) // creates the stream as the writers see it
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	if err != nil {
		tb.Fatal(err)
	}
	f := model.Fixture{ID: 1234567, CompetitionID: 1234, Matchday: 17, Stage: model.Regular, Round: "Matchday 17",
		Kickoff: time.Date(2015, 8, 8, 14, 0, 0, 0, time.UTC), HomeTeamID: 1234, AwayTeamID: 2345, Status: model.Finished,
		Result: model.Result{FullTime: &model.Score{Home: 1, Away: 3}, HalfTime: &model.Score{Home: 0, Away: 1}},
		Source: "openfootball:PL:2015:Matchday 17|Norwich City|Crystal Palace"}
	body, err := events.Encode(&f)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	for i := range n {
		if _, err := js.PublishAsync(fmt.Sprintf("football.fixture.1.%d", i+1), body); err != nil {
			tb.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		tb.Fatal("raw publish did not complete")
	}
	return time.Since(start)
}
