package natstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natsembed"
)

// TestNodeThatFailsShowsItsLog: a node that does not come up (its
// storage is a file) leaves in its log what StartCluster and the deploy
// tests report: why.
func TestNodeThatFailsShowsItsLog(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 10 s a node has to come up")
	}
	file := filepath.Join(t.TempDir(), "store")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	log := &NATSLog{}
	s, err := natsembed.Start(natsembed.Options{Dir: file, Log: log})
	if err == nil {
		s.Stop()
		t.Fatal("a node with a file for storage started")
	}
	if want := "storage directory is not a directory"; !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, log.String())
	}
}
