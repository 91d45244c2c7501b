package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ingestBinary builds cmd/ingest into dir/bin/ingest.
func ingestBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "ingest"), "../cmd/ingest").CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/ingest: %v\n%s", err, out)
	}
	return dir
}

// ingest runs bin/ingest in dir as user of the cluster c.
func (c *natsCluster) ingest(t *testing.T, dir, user string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "bin", "ingest"), args...)
	cmd.Env = append(os.Environ(), "FD_NATS_URL="+c.url(user), "FD_NATS_CA="+c.ca, "FD_EDITOR=test")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBackupOnTheDeployCluster takes the steps of deploy/README.md,
// Backups, on the cluster of deploy/nats (TLS, users, R3), as
// runbook_test.go runs them through local-cluster.sh: a backup as admin of
// a cluster with data, then a restore and stream init on another with
// nothing (as after the loss of every node's storage), which then holds
// the same stream, sequences and all, at R3. The user ingest may not take
// a backup, and is told who may.
func TestBackupOnTheDeployCluster(t *testing.T) {
	dir := ingestBinary(t)
	backup := filepath.Join(t.TempDir(), "backup.fdbackup")
	src := startNATSCluster(t)
	if out, err := src.ingest(t, dir, "admin", "stream", "init", "--replicas", "3"); err != nil {
		t.Fatalf("stream init: %v\n%s", err, out)
	}
	file := filepath.Join("..", "..", "shared", "data", "openfootball-football-json", "2015-16", "en.1.json")
	if out, err := src.ingest(t, dir, "ingest", "import", "openfootball", file); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := src.ingest(t, dir, "admin", "backup", backup); err != nil {
		t.Fatalf("backup as admin: %v\n%s", err, out)
	}
	out, err := src.ingest(t, dir, "ingest", "backup", filepath.Join(filepath.Dir(backup), "by-ingest.fdbackup"))
	if err == nil || !strings.Contains(out, `NATS user ingest may not publish to "$JS.API.STREAM.NAMES"`) ||
		!strings.Contains(out, ": this needs the NATS user admin (`env admin`, see deploy/README.md)") {
		t.Errorf("a backup as the user ingest: %v\n%s", err, out)
	}

	dst := startNATSCluster(t)
	for _, args := range [][]string{{"restore", backup}, {"stream", "init", "--replicas", "3"}} {
		if out, err := dst.ingest(t, dir, "admin", args...); err != nil {
			t.Fatalf("%s as admin: %v\n%s", args[0], err, out)
		}
	}
	// What stream info says of each, but the leader, which may differ.
	info := func(c *natsCluster) string {
		t.Helper()
		out, err := c.ingest(t, dir, "admin", "stream", "info")
		if err != nil {
			t.Fatalf("stream info: %v\n%s", err, out)
		}
		var rows []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			rows = append(rows, strings.Join(f[:len(f)-1], " "))
		}
		return strings.Join(rows, "\n")
	}
	want, got := info(src), info(dst)
	if got != want {
		t.Errorf("after the restore:\n%s\nbefore:\n%s", got, want)
	}
	if !regexp.MustCompile(`(?m)^FOOTBALL 3 [1-9]\d+ `).MatchString(got) {
		t.Errorf("the restored stream is not at R3 with its messages:\n%s", got)
	}
}
