package importer_test

import (
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
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
		fixtures = sum.Fixtures.Created
		b.StopTimer()
		rawTime += natstest.MustRawPublish(b, fixtures)
		b.StartTimer()
	}
	b.StopTimer()
	imp := float64(fixtures*b.N) / importTime.Seconds()
	raw := float64(fixtures*b.N) / rawTime.Seconds()
	b.ReportMetric(imp, "fixtures/s")
	b.ReportMetric(raw, "raw-msgs/s")
	b.ReportMetric(imp/raw, "import/raw")
}
