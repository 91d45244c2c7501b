// Package buildinfo says which build of the service is running: its
// version, the commit it was built from and the Go version, read from the
// build information the Go toolchain embeds in every binary.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info describes a build.
type Info struct {
	Version   string // module version, "devel" for a build from a checkout
	Commit    string // VCS revision, with "-dirty" for uncommitted changes; "unknown" without VCS information
	GoVersion string
}

// Read returns the running binary's build information.
func Read() Info {
	i := Info{Version: "devel", Commit: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return i
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		i.Version = v
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && i.Commit != "unknown" {
		i.Commit += "-dirty"
	}
	return i
}

// String is the line `--version` prints.
func (i Info) String() string {
	return fmt.Sprintf("version %s, commit %s, %s", i.Version, i.Commit, i.GoVersion)
}
