package importer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// BenchmarkParse reads and parses one file of each format, without a
// stream: the part of an import that reading a file (its size limit, its
// encoding) adds to. Reported: MB/s of file read.
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
			for b.Loop() {
				if _, err := bc.parse(bc.path, Options{}, leagues); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
