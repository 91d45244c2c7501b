package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// Input is one file to import: a file on disk, or a body fetched from
// elsewhere (a feed's HTTP response).
type Input struct {
	// Name is the file's path, or the name a fetched body goes by (the
	// path or whole URL it was fetched from): formats read from it what
	// the content does not say (league and season), as from a path.
	Name string
	// Open opens the body; nil reads the file Name.
	Open func() (io.ReadCloser, error)
}

// Files are inputs of the files at paths.
func Files(paths ...string) []Input {
	ins := make([]Input, len(paths))
	for i, p := range paths {
		ins[i] = Input{Name: p}
	}
	return ins
}

// Bytes is an input of a body held in memory under name.
func Bytes(name string, body []byte) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }}
}

// open opens an input for a format that reads a stream: the file Name
// when the input has no body of its own.
func (in Input) open() (io.ReadCloser, error) {
	if in.Open != nil {
		return in.Open()
	}
	f, err := os.Open(in.Name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, invalidFile("cannot be read: %v", err)
	}
	return f, nil
}

// skipBOM returns r without the UTF-8 byte order mark some files begin
// with (football-data.co.uk's among them): read as text, it would stick to
// the first column's name.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	return br
}

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
