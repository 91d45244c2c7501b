package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
)

// TestV4TLSFront runs docs/v4.md's TLS front for clients with
// https://api.football-data.org written in, as the page gives it: its sh
// block (in a mount namespace whose /etc/hosts is a copy) makes the CA
// and the certificate and destroys the CA's key, and nginx runs the page's
// whole front.conf with the command the page names. Only the addresses
// move: the front listens on port 443 of a loopback address of its own,
// and passes to this test's replica. A client that trusts the CA reaches
// the replica by the name.
func TestV4TLSFront(t *testing.T) {
	if os.Geteuid() != 0 {
		natstest.SkipMissing(t, "not root, so docs/v4.md's hosts entry cannot be made in a mount namespace of its own", "run the test as root")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if nginx, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			natstest.SkipMissing(t, "nginx is not installed, so docs/v4.md's front was not run", "apt-get install nginx-light")
		}
	}
	dir, hosts := privateHosts(t, "docs/v4.md's hosts entry")
	r := startReplica(t, "")
	block := natstest.BlockAfter(t, "../../docs/v4.md", "written in (", "sh").Text
	mk := exec.Command("unshare", "-m", "sh", "-c", `mount --bind "$0" /etc/hosts && exec bash -euo pipefail -c "$1"`, hosts, block)
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("docs/v4.md's block: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ca.key")); err == nil {
		t.Errorf("docs/v4.md's block leaves the CA's key ca.key")
	}
	if b, _ := os.ReadFile(hosts); !strings.Contains(string(b), "127.0.0.1 api.football-data.org") {
		t.Fatalf("docs/v4.md's block added no hosts entry:\n%s", b)
	}

	conf := natstest.BlockAfter(t, "../../docs/v4.md", "written in (", "nginx").Text
	replica := strings.TrimPrefix(r.base, "http://")
	// The front listens where the test says, on a socket in its folder
	// rather than 127.0.0.1:443, so that runs side by side (or a web
	// server on port 443) cannot collide; the client below dials it for
	// the name the hosts entry gives.
	sock := filepath.Join(dir, "front.sock")
	front := strings.NewReplacer("127.0.0.1:443", "unix:"+sock, "127.0.0.1:8080", replica).Replace(conf)
	if err := os.WriteFile(filepath.Join(dir, "front.conf"), []byte(front), 0o600); err != nil {
		t.Fatal(err)
	}
	start := exec.Command(nginx, "-p", dir, "-c", "front.conf")
	start.Dir = dir
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("nginx -p \"$PWD\" -c front.conf: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(nginx, "-p", dir, "-c", "front.conf", "-s", "stop").CombinedOutput(); err != nil {
			t.Errorf("nginx -s stop: %v\n%s", err, out)
		}
	})

	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	// The client reaches the name at the front's socket, as the hosts
	// entry would send it to the front's address.
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", sock)
		},
	}}
	var status int
	var body []byte
	natstest.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		resp, err := client.Get("https://api.football-data.org/v4/competitions")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		status = resp.StatusCode
		body, err = io.ReadAll(resp.Body)
		return err
	})
	if status != http.StatusOK || !strings.Contains(string(body), `"competitions"`) {
		t.Errorf("https://api.football-data.org/v4/competitions through the front: %d %.300s", status, body)
	}
}
