package generate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkGenerate generates ten leagues over two seasons (about 8,000
// fixtures, with squads and a tournament) into a fresh server and, in the
// same iteration, publishes as many fixture-sized messages with a raw
// async JetStream publish to another fresh server: the baseline. Reported:
// fixtures/s, the generator's messages/s, the raw messages/s and their
// ratio (generate/raw).
func BenchmarkGenerate(b *testing.B) {
	cfg := generate.Config{Seed: 1, Leagues: 10, Seasons: 2}
	var genTime, rawTime time.Duration
	var fixtures, messages int
	for range b.N {
		b.StopTimer()
		s := natstest.MustOpen(b, natstest.MustStart(b))
		b.StartTimer()
		start := time.Now()
		sum, err := generate.Run(context.Background(), s, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		genTime += time.Since(start)
		fixtures, messages = sum.Fixtures, sum.Messages
		b.StopTimer()
		rawTime += rawPublish(b, messages)
		b.StartTimer()
	}
	b.StopTimer()
	gen := float64(messages*b.N) / genTime.Seconds()
	raw := float64(messages*b.N) / rawTime.Seconds()
	b.ReportMetric(float64(fixtures*b.N)/genTime.Seconds(), "fixtures/s")
	b.ReportMetric(gen, "msgs/s")
	b.ReportMetric(raw, "raw-msgs/s")
	b.ReportMetric(gen/raw, "generate/raw")
}

// rawPublish async-publishes n fixture messages, one subject each, with a
// bounded window, to a fresh server and returns the time it took.
func rawPublish(b *testing.B, n int) time.Duration {
	srv := natstest.MustStart(b)
	natstest.MustOpen(b, srv) // creates the stream as the generator sees it
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	if err != nil {
		b.Fatal(err)
	}
	f := model.Fixture{ID: 1234567, CompetitionID: 1234, Matchday: 17, Stage: model.Regular,
		Kickoff: time.Date(2015, 8, 8, 14, 0, 0, 0, time.UTC), HomeTeamID: 1234, AwayTeamID: 2345, Status: model.Finished,
		Result: model.Result{FullTime: &model.Score{Home: 1, Away: 3}, HalfTime: &model.Score{Home: 0, Away: 1}}}
	body, err := events.Encode(&f)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range n {
		if _, err := js.PublishAsync(fmt.Sprintf("football.fixture.1.%d", i+1), body); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("raw publish did not complete")
	}
	return time.Since(start)
}
