package importer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkImportSeason imports the whole 2015-16 season directory (16
// leagues) into a fresh server and, in the same iteration, publishes the
// same number of fixture-sized messages with a raw async JetStream publish
// to another fresh server: the baseline. Reported: fixtures/s for both and
// their ratio (import/raw; the design target is at least 0.5).
func BenchmarkImportSeason(b *testing.B) {
	files := season(b, "2015-16")
	var importTime, rawTime time.Duration
	fixtures := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := natstest.MustOpen(b, natstest.MustStart(b))
		b.StartTimer()
		start := time.Now()
		sum := importAll(b, s, files...)
		importTime += time.Since(start)
		fixtures = sum.Fixture.Created
		b.StopTimer()
		rawTime += rawPublish(b, fixtures)
		b.StartTimer()
	}
	b.StopTimer()
	imp := float64(fixtures*b.N) / importTime.Seconds()
	raw := float64(fixtures*b.N) / rawTime.Seconds()
	b.ReportMetric(imp, "fixtures/s")
	b.ReportMetric(raw, "raw-msgs/s")
	b.ReportMetric(imp/raw, "import/raw")
}

// rawPublish async-publishes n fixture messages, one subject each, with a
// bounded window, to a fresh server and returns the time it took.
func rawPublish(b *testing.B, n int) time.Duration {
	srv := natstest.MustStart(b)
	natstest.MustOpen(b, srv) // creates the stream as the importer sees it
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	if err != nil {
		b.Fatal(err)
	}
	f := model.Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: model.Regular, Round: "Matchday 1",
		Kickoff: time.Date(2015, 8, 8, 14, 0, 0, 0, time.UTC), HomeTeamID: 1, AwayTeamID: 2, Status: model.Finished,
		Result: model.Result{FullTime: &model.Score{Home: 1, Away: 3}, HalfTime: &model.Score{Home: 0, Away: 1}},
		Source: "openfootball:PL:2015:Matchday 1|Norwich City|Crystal Palace"}
	body, err := events.Encode(&f)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
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
