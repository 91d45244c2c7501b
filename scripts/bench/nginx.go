package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cores is how the read rows share the machine: the server under test
// (ours, bare or nginx) pinned to some cores, the load generator (this
// process) to the others, so that p99 measures the server rather than the
// scheduler. On one core nothing is pinned.
type cores struct {
	server, load string // taskset lists; "" when not pinned
	serverCores  int
	serverList   []int // the server's cores, for their busy share
	// shared is set when the server has every core (--server-cores) and
	// the load generator runs on them too: a core's busy share then counts
	// both, so a row is judged by each server's CPU per request, which
	// the sharing does not change (issue 38).
	shared bool
}

// splitCores gives the server want cores (0: half of the machine's) and
// the load generator the others, or the same ones when want is every core.
func splitCores(want int) cores {
	n := runtime.NumCPU()
	if n < 2 {
		return cores{serverCores: n, serverList: []int{0}}
	}
	k := n / 2
	if want > 0 {
		k = min(want, n)
	}
	c := cores{server: cpuList(0, k), load: cpuList(k, n), serverCores: k, shared: k == n}
	if c.shared {
		c.load = c.server
	}
	for i := range k {
		c.serverList = append(c.serverList, i)
	}
	return c
}

func cpuList(from, to int) string {
	if to-from == 1 {
		return strconv.Itoa(from)
	}
	return fmt.Sprintf("%d-%d", from, to-1)
}

func (c cores) String() string {
	if c.server == "" {
		return "server and load generator share the only core"
	}
	if c.shared {
		return fmt.Sprintf("server (GOMAXPROCS %d, %d nginx workers) and load generator share cores %s (taskset)", c.serverCores, c.serverCores, c.server)
	}
	return fmt.Sprintf("server on core %s, load generator on core %s (taskset)", c.server, c.load)
}

// pin sets the CPU affinity of every thread of pid. A Go process follows
// its new affinity with GOMAXPROCS within about a second.
func pin(pid int, cpus string) error {
	if cpus == "" {
		return nil
	}
	out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -a -p -c %s %d: %v: %s", cpus, pid, err, out)
	}
	return nil
}

// pinned returns argv run under taskset on cpus, or argv itself when
// nothing is pinned.
func pinned(cpus string, argv ...string) []string {
	if cpus == "" {
		return argv
	}
	return append([]string{"taskset", "-c", cpus}, argv...)
}

// nginxBinary finds nginx, installing Debian's nginx-light when it is
// missing and the bench runs as root (the package's service is not
// started where a policy-rc.d forbids it; the bench starts its own).
func nginxBinary() (string, error) {
	find := func() (string, error) {
		if p, err := exec.LookPath("nginx"); err == nil {
			return p, nil
		}
		if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
			return "/usr/sbin/nginx", nil
		}
		return "", errors.New("nginx not found")
	}
	if p, err := find(); err == nil {
		return p, nil
	}
	if os.Geteuid() != 0 {
		return "", errors.New("nginx not found and not root: install Debian's nginx-light")
	}
	if err := aptInstall("nginx-light"); err != nil {
		return "", err
	}
	return find()
}

// aptInstall installs a Debian package (a tool the bench measures with or
// against; its service is not started where a policy-rc.d forbids it).
func aptInstall(pkg string) error {
	fmt.Printf("  installing %s (apt-get)\n", pkg)
	for _, argv := range [][]string{{"apt-get", "update", "-q"}, {"apt-get", "install", "-y", "-q", "--no-install-recommends", pkg}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, out[max(0, len(out)-600):])
		}
	}
	return nil
}

// staticFile is one captured response nginx serves from disk.
type staticFile struct {
	path, contentType string
	body              []byte
	// gzipped is the body as our replica gzips it, when a row asks for
	// it: nginx serves it with gzip_static to a client that accepts gzip.
	gzipped []byte
}

// startNginx serves files on a free loopback port the way a static file
// server is usually set up for speed: sendfile, no access log, keep-alive
// connections kept as long as fasthttp keeps them, one worker per core
// given to the server. Each path is an exact location answering with the
// file's bytes and our Content-Type, and with the gzipped file beside it
// (gzip_static) to a client that accepts gzip, where a row asks for it.
func startNginx(env *benchEnv, files []staticFile, c cores) (*process, error) {
	bin, err := nginxBinary()
	if err != nil {
		return nil, err
	}
	// A directory of its own: workers run as another user unless told
	// otherwise, and the bench's temporary directory is private.
	dir := filepath.Join(env.tmp, "nginx")
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		return nil, err
	}
	// nginx cannot bind port 0 and say what it got: it takes a socket
	// the bench bound, as a new binary takes its predecessor's.
	ln, err := listenInherited()
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	addr := ln.Name()
	var locs strings.Builder
	for i, f := range files {
		name := filepath.Join(dir, "www", strconv.Itoa(i))
		if err := os.WriteFile(name, f.body, 0o644); err != nil {
			return nil, err
		}
		gz := ""
		if f.gzipped != nil {
			if err := os.WriteFile(name+".gz", f.gzipped, 0o644); err != nil {
				return nil, err
			}
			gz = " gzip_static on; gzip_vary on;"
		}
		fmt.Fprintf(&locs, "    location = %s { default_type %q; alias %s;%s }\n", f.path, f.contentType, name, gz)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	conf := fmt.Sprintf(`%s
daemon off;
master_process on;
worker_processes %d;
pid %s/nginx.pid;
error_log %s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  server_tokens off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_temp_path %s/body;
  types {}
  server {
    listen %s;
%s  }
}
`, user, max(1, c.serverCores), dir, dir, dir, addr, locs.String())
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	argv := pinned(c.server, bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", confPath)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{ln}
	cmd.Env = append(os.Environ(), "NGINX=3;")
	p, err := startCommand(env.logPath("nginx"), addr, cmd)
	if err != nil {
		return nil, err
	}
	for range 500 {
		if code, _, _, err := p.get(files[0].path, nil); err == nil && code == 200 {
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("nginx exited: %s", p.logTail())
		case <-time.After(10 * time.Millisecond):
		}
	}
	p.stop()
	return nil, fmt.Errorf("nginx on %s does not answer: %s", addr, p.logTail())
}

// listenInherited is a listening socket on a loopback port of the
// kernel's choosing, for a child to take as its descriptor 3 (NGINX=3;):
// named by its address, non-blocking as nginx's own sockets are. It is
// made blocking and then set non-blocking behind os's back, because
// handing a descriptor os polls to a child makes it blocking (File.Fd).
func listenInherited() (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	fail := func(what string, err error) (*os.File, error) {
		syscall.Close(fd)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail("bind 127.0.0.1:0", err)
	}
	if err := syscall.Listen(fd, 511); err != nil {
		return fail("listen", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		return fail("getsockname", fmt.Errorf("not an IPv4 address: %T", sa))
	}
	f := os.NewFile(uintptr(fd), net.JoinHostPort("127.0.0.1", strconv.Itoa(in.Port)))
	if err := syscall.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("non-blocking: %w", err)
	}
	return f, nil
}
