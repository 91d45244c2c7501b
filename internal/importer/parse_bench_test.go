package importer

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// BenchmarkParse reads and parses one file of each format, without a
// stream: the part of an import that reading a file (its size limit, its
// encoding) adds to. Reported: MB/s of file read, and the process's CPU
// time per parse, the steadier figure on a shared machine.
func BenchmarkParse(b *testing.B) {
	leagues := func(code model.LeagueCode) (model.League, error) {
		if l, ok := model.BuiltinLeague(code); ok {
			return l, nil
		}
		return model.League{}, model.Invalidf("league", string(code), "unknown")
	}
	data := filepath.Join("..", "..", "..", "shared", "data")
	for _, bc := range []struct {
		name, path string
		parse      func(string, Options, func(model.LeagueCode) (model.League, error)) (*source, error)
	}{
		{"openfootball", filepath.Join(data, "openfootball-football-json", "2015-16", "en.1.json"), parseOpenFootball},
		{"engsoccerdata", filepath.Join(data, "engsoccerdata", "data-raw", "england.csv"), parseEngSoccerFile},
	} {
		b.Run(bc.name, func(b *testing.B) {
			fi, err := os.Stat(bc.path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := bc.parse(bc.path, Options{}, leagues); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
