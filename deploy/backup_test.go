package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlocks returns the shell blocks of a section of README.md.
func readmeBlocks(t *testing.T, section string) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(readme), "\n## "+section+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", section)
	}
	body, _, _ = strings.Cut(body, "\n## ")
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(body, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// ingestBinary builds cmd/ingest into dir/bin/ingest, where the README's
// blocks run it from.
func ingestBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "ingest"), "../cmd/ingest").CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/ingest: %v\n%s", err, out)
	}
	return dir
}

// shell runs script in dir against the cluster c, with what only a test
// can rewrite rewritten: the nodes' addresses, the CA's and the backups'
// paths; ADMIN_PASSWORD is the admin's.
func (c *natsCluster) shell(t *testing.T, dir, backups, script string) (string, error) {
	t.Helper()
	pairs := []string{"/etc/footballd/nats-ca/ca.pem", c.ca, "/var/backups/footballd", backups}
	for i, u := range c.urls {
		pairs = append(pairs, "fd-nats-"+string(rune('1'+i))+":4222", strings.TrimPrefix(u, "nats://"))
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", replaceAll(t, "the README's block", script, pairs...))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADMIN_PASSWORD="+c.passwords["admin"])
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// ingest runs bin/ingest in dir as user of the cluster c.
func (c *natsCluster) ingest(t *testing.T, dir, user string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "bin", "ingest"), args...)
	cmd.Env = append(os.Environ(), "FD_NATS_URL="+c.url(user), "FD_NATS_CA="+c.ca, "FD_EDITOR=test")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBackupRunbook runs the section Backups of README.md as written, on
// the cluster of deploy/nats (TLS, users, R3): its backup block on a
// cluster with data, then its restore block on another with nothing (as
// after the loss of every node's storage), which then holds the same
// stream, sequences and all, at R3. The user ingest may not take a backup,
// and is told who may.
func TestBackupRunbook(t *testing.T) {
	blocks := readmeBlocks(t, "Backups")
	if len(blocks) != 2 {
		t.Fatalf("the section Backups has %d shell blocks, want 2 (backup, restore)", len(blocks))
	}
	dir := ingestBinary(t)
	backups := t.TempDir()
	src := startNATSCluster(t)
	if out, err := src.ingest(t, dir, "admin", "stream", "init", "--replicas", "3"); err != nil {
		t.Fatalf("stream init: %v\n%s", err, out)
	}
	file := filepath.Join("..", "..", "shared", "data", "openfootball-football-json", "2015-16", "en.1.json")
	if out, err := src.ingest(t, dir, "ingest", "import", "openfootball", file); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := src.shell(t, dir, backups, blocks[0]); err != nil {
		t.Fatalf("the backup block: %v\n%s", err, out)
	}
	out, err := src.ingest(t, dir, "ingest", "backup", filepath.Join(backups, "by-ingest.fdbackup"))
	if err == nil || !strings.Contains(out, `NATS user ingest may not publish to "$JS.API.STREAM.SNAPSHOT.FOOTBALL"`) ||
		!strings.Contains(out, `: backups and restores run as the NATS user admin (deploy/README.md, Backups)`) {
		t.Errorf("a backup as the user ingest: %v\n%s", err, out)
	}

	dst := startNATSCluster(t)
	if out, err := dst.shell(t, dir, backups, blocks[1]); err != nil {
		t.Fatalf("the restore block: %v\n%s", err, out)
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
