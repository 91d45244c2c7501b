package generate_test

import (
	"context"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natstest"
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
		rawTime += natstest.MustRawPublish(b, messages)
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
