package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestReplicaLinksNoWriteSide keeps the read replica free of the write
// side: a replica that linked the editor, the importer, the follower or the
// data files would carry code it never runs, and a change there would
// rebuild and redeploy every replica. What both sides need (stream and
// bucket names and configurations) lives in pkg/events.
func TestReplicaLinksNoWriteSide(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"internal/editor", "internal/importer", "internal/follow", "internal/datafile"} {
		if slices.Contains(deps, "github.com/footdata/footballd/"+p) {
			t.Errorf("cmd/api links %s (go list -deps ./cmd/api): move what the replica needs of it to a package both sides read", p)
		}
	}
}
