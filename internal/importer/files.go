package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// filesWith is a Format's Files for formats that take folders: a folder
// stands for its files whose names end in ext, in name order; anything
// else is a file, whatever its name.
func filesWith(ext string) func(paths []string) ([]string, error) {
	return func(paths []string) ([]string, error) {
		var files []string
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil || !fi.IsDir() {
				files = append(files, p)
				continue
			}
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", p, err)
			}
			var in []string
			for _, e := range entries {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
					in = append(in, filepath.Join(p, e.Name()))
				}
			}
			if len(in) == 0 {
				return nil, model.Invalidf("path", p, "the folder has no %s files", ext)
			}
			sort.Strings(in)
			files = append(files, in...)
		}
		return files, nil
	}
}
