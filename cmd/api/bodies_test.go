package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// TestBodyDirectory: a replica sends the largest cached bodies from
// unnamed files in footballd/bodies of the system's cache directory
// ($XDG_CACHE_HOME, or ~/.cache), or in the directory --body-dir names;
// with "memory", no cache directory, or one that refuses the files (said
// in the log), from memory files. Either way the body is the same, and
// the directory lists nothing.
func TestBodyDirectory(t *testing.T) {
	// Links are absolute: one base for every replica's bytes.
	first := startReplica(t, "", "--public-url", "http://api.test")
	importFiles(t, first.store(), "openfootball-football-json/2015-16/en.1.json")
	const path = "/v1/competitions/398/fixtures"
	var want response
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		// The replica follows the import: 380 fixtures, about 300 KB.
		var season struct {
			Count int `json:"count"`
		}
		if want = first.do("GET", path, nil); want.status != 200 || json.Unmarshal(want.body, &season) != nil || season.Count != 380 {
			return fmt.Errorf("GET %s: %d, %d fixtures; want the season's 380", path, want.status, season.Count)
		}
		return nil
	})
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := func(d bodyDirs) string { return filepath.Join(d.home, ".cache", "footballd", "bodies") }
	tests := []struct {
		name string
		env  func(d bodyDirs) map[string]string
		args func(d bodyDirs) []string
		// dir is where the body's file must be, "" for memory; warn is
		// what the log must say then.
		dir, warn func(d bodyDirs) string
	}{
		{"default: ~/.cache", homeEnv, nil, cache, nil},
		{"default: $XDG_CACHE_HOME", func(d bodyDirs) map[string]string { return map[string]string{"HOME": d.home, "XDG_CACHE_HOME": d.xdg} }, nil,
			func(d bodyDirs) string { return filepath.Join(d.xdg, "footballd", "bodies") }, nil},
		{"--body-dir", homeEnv, func(d bodyDirs) []string { return []string{"--body-dir", d.named} }, func(d bodyDirs) string { return d.named }, nil},
		{"FD_BODY_DIR", func(d bodyDirs) map[string]string { return map[string]string{"HOME": d.home, "FD_BODY_DIR": d.named} }, nil,
			func(d bodyDirs) string { return d.named }, nil},
		{"memory", homeEnv, func(d bodyDirs) []string { return []string{"--body-dir", "memory"} }, nil, nil},
		{"no cache directory", nil, nil, nil, func(bodyDirs) string { return "neither $XDG_CACHE_HOME nor $HOME is set" }},
		{"refused", homeEnv, func(d bodyDirs) []string { return []string{"--body-dir", filepath.Join(notDir, "bodies")} }, nil,
			func(bodyDirs) string { return filepath.Join(notDir, "bodies") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := bodyDirs{t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "bodies")}
			var env map[string]string
			if tt.env != nil {
				env = tt.env(d)
			}
			args := []string{"--listen", "127.0.0.1:0", "--admin-listen", "", "--drain", "0s", "--public-url", "http://api.test", "--nats", first.nats}
			if tt.args != nil {
				args = append(args, tt.args(d)...)
			}
			r := launchEnv(t, env, args...)
			r.waitReady()
			for range 2 {
				if got := r.do("GET", path, nil); got.status != 200 || string(got.body) != string(want.body) {
					t.Fatalf("GET %s: %d, %d bytes; want the %d bytes the first replica sent", path, got.status, len(got.body), len(want.body))
				}
			}
			files := bodyFiles(t)
			if tt.dir != nil {
				dir := tt.dir(d)
				if !files[dir] {
					t.Errorf("no body file in %s; the process's unnamed files are in %v", dir, files)
				}
				if names, err := os.ReadDir(dir); err != nil || len(names) != 0 {
					t.Errorf("%s lists %v, %v; want nothing (unnamed files)", dir, names, err)
				}
			}
			for _, dir := range []string{cache(d), d.named} {
				if tt.dir == nil && files[dir] {
					t.Errorf("a body file in %s, want memory files", dir)
				}
			}
			if tt.warn != nil && !strings.Contains(r.logs.String(), tt.warn(d)) {
				t.Errorf("the log does not say %q:\n%s", tt.warn(d), r.logs.String())
			}
		})
	}
}

// bodyDirs are a case's directories: each case has its own, since an
// earlier replica's files stay open until the collector takes its entries.
type bodyDirs struct{ home, xdg, named string }

// homeEnv is an environment of HOME alone.
func homeEnv(d bodyDirs) map[string]string {
	return map[string]string{"HOME": d.home}
}

// bodyFiles are the directories of this process's open unnamed files
// (O_TMPFILE: /proc/self/fd links "DIR/#INODE (deleted)").
func bodyFiles(t *testing.T) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasSuffix(target, " (deleted)") && strings.Contains(target, "/#") {
			dirs[filepath.Dir(target)] = true
		}
	}
	return dirs
}
