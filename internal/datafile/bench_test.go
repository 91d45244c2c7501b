package datafile

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads the largest openfootball league file of 2015-16
// as os.ReadFile does and as ReadFile does (size limit, UTF-8 check).
func BenchmarkReadFile(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "data", "openfootball-football-json", "2015-16", "en.1.json")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		read func(string) ([]byte, error)
	}{{"os", os.ReadFile}, {"datafile", Options{}.ReadFile}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.read(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
