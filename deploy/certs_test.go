package deploy

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// TestCertificatesBlock runs deploy/README.md's certificates block as
// written (mktemp under a TMPDIR of the test's): the node certificates
// are made, and no CA private key is left behind, in the temporary
// folder or anywhere else under TMPDIR; the nodes' keys are their
// owner's alone.
func TestCertificatesBlock(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl not found: gencerts.sh needs it (.ci/run installs it)")
	}
	block := natstest.BlockAfter(t, "README.md", "### 1. Certificates", "sh").Text
	tmp := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("deploy/README.md's certificates block: %v\n%s", err, out)
	}
	var certs, keys []string
	err := filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch name := d.Name(); {
		case name == "ca-key.pem":
			t.Errorf("the CA's private key is left at %s", path)
		case strings.HasSuffix(name, "-key.pem"):
			keys = append(keys, path)
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", path, info.Mode().Perm())
			}
		case name == "server.pem":
			certs = append(certs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(certs) != 3 || len(keys) != 3 {
		t.Errorf("node certificates %q and keys %q, want three of each", certs, keys)
	}
}
