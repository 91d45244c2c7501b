package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/wire/wiretest"
	"golang.org/x/sys/unix"
)

// TestBodiesKeepFilesWhereTold: a large body goes out from an unnamed file
// in the body directory, which lists nothing, or from a memory file when
// the server has no directory or the directory refuses the file; every
// response carries the body's bytes.
func TestBodiesKeepFilesWhereTold(t *testing.T) {
	tests := []struct {
		name string
		// bodies returns the store and the directory the file must be in
		// ("" for a memory file).
		bodies func(t *testing.T) (*Bodies, string)
	}{
		{"directory", func(t *testing.T) (*Bodies, string) {
			dir := filepath.Join(t.TempDir(), "cache", "bodies")
			b, err := OpenBodies(dir)
			if err != nil {
				t.Fatal(err)
			}
			return b, dir
		}},
		{"memory", func(t *testing.T) (*Bodies, string) { return nil, "" }},
		{"directory removed after start", func(t *testing.T) (*Bodies, string) {
			dir := filepath.Join(t.TempDir(), "bodies")
			b, err := OpenBodies(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			return b, ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, dir := tt.bodies(t)
			e := NewEntry(200, wiretest.Body(3*SendfileMin+7), maxAge10)
			addr := serveFrom(t, map[string]*Entry{"/big": e}, b)
			for i := range 3 {
				if got := get(t, addr, "/big"); !bytes.Equal(got, e.Body()) {
					t.Fatalf("response %d: %d bytes (first difference at %d), want the %d of the body", i, len(got), wiretest.FirstDiff(got, e.Body()), len(e.Body()))
				}
			}
			if !e.InFile(b) {
				t.Fatal("the body has no file")
			}
			target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(e.fd))
			if err != nil {
				t.Fatal(err)
			}
			if dir == "" {
				if !strings.HasPrefix(target, "/memfd:") {
					t.Errorf("body file %s, want a memory file", target)
				}
				return
			}
			if !strings.HasPrefix(target, dir+"/") {
				t.Errorf("body file %s, want an unnamed file in %s", target, dir)
			}
			var st unix.Stat_t
			if err := unix.Fstat(e.fd, &st); err != nil || st.Nlink != 0 || st.Size != int64(len(e.Body())) {
				t.Errorf("body file: %d links, %d bytes, %v; want no name and the %d bytes", st.Nlink, st.Size, err, len(e.Body()))
			}
			if names, err := os.ReadDir(dir); err != nil || len(names) != 0 {
				t.Errorf("body directory lists %v, %v; want nothing", names, err)
			}
		})
	}
}

// TestOpenBodiesRefuses: a directory that cannot be made is an error
// naming it, and the caller keeps bodies in memory.
func TestOpenBodiesRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", filepath.Join(file, "bodies")} {
		b, err := OpenBodies(dir)
		if err == nil || b != nil || !strings.Contains(err.Error(), "body directory") || !strings.Contains(err.Error(), dir) {
			t.Errorf("OpenBodies(%q) = %v, %v; want an error naming the body directory", dir, b, err)
		}
	}
}
