package importer_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
)

// BenchmarkImportSeason imports the whole 2015-16 season directory (16
// leagues) into a fresh server and, in the same iteration, publishes the
// same number of fixture-sized messages with a raw async JetStream publish
// to another fresh server: the baseline. Reported: fixtures/s for both and
// their ratio (import/raw; the design target is at least 0.5), and the
// process's CPU time per imported fixture (the server runs in the process,
// as in the bench's ingest rows), the steadier figure on a shared machine.
func BenchmarkImportSeason(b *testing.B) {
	benchmarkImport(b, "openfootball", season(b, "2015-16")...)
}

// BenchmarkImportEngSoccer is BenchmarkImportSeason for the whole
// engsoccerdata folder (about 471k fixtures), the bench's other ingest row.
func BenchmarkImportEngSoccer(b *testing.B) {
	benchmarkImport(b, "engsoccerdata", natstest.SharedData(b, "engsoccerdata", "data-raw"))
}

// BenchmarkImportPremierLeague2015 imports the Premier League 2015-16
// (380 fixtures) from each format that has it, one file each, for the
// formats' speeds side by side.
func BenchmarkImportPremierLeague2015(b *testing.B) {
	for _, f := range []struct{ format, file string }{
		{"openfootball", "openfootball-football-json/2015-16/en.1.json"},
		{"football-data", "datasets-football-datasets/datasets/premier-league/season-1516.csv"},
		{"footballcsv", "footballcsv-cache.footballdata/2015-16/eng.1.csv"},
	} {
		b.Run(f.format, func(b *testing.B) { benchmarkImport(b, f.format, natstest.SharedData(b, f.file)) })
	}
}

// BenchmarkImportTournaments imports the World Cups of 2018 and 2022 and
// the Euro 2024 (179 fixtures, 445 goals): what resolving every scorer
// to a person costs beside writing the fixtures.
func BenchmarkImportTournaments(b *testing.B) {
	benchmarkImport(b, "openfootball", natstest.SharedData(b, "openfootball-worldcup-json/2018/worldcup.json"),
		natstest.SharedData(b, "openfootball-worldcup-json/2022/worldcup.json"), natstest.SharedData(b, "openfootball-euro-json/2024/euro.json"))
}

func benchmarkImport(b *testing.B, format string, paths ...string) {
	var importTime, rawTime, cpu time.Duration
	fixtures := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := natstest.MustOpen(b, natstest.MustStart(b))
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU(b)
		sum := natstest.Import(b, s, format, importer.Options{}, paths...)
		importTime += time.Since(start)
		cpu += processCPU(b) - cpu0
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
	b.ReportMetric(float64(cpu.Microseconds())/float64(fixtures*b.N), "cpu-µs/fixture")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
