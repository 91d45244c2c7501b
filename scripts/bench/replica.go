package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// process is a child process serving HTTP on addr: an API replica or the
// bare baseline server.
type process struct {
	cmd     *exec.Cmd
	addr    string
	admin   string // the admin listener, "" for processes without one
	started time.Time
	logPath string
	exited  chan struct{}
	client  *fasthttp.HostClient
}

// freeAddr picks a free port for a server that cannot bind port 0 and say
// what it got: the routes of a NATS cluster, which every node must know
// before it starts.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startProcess runs argv, which serves HTTP on addr, with its output in
// logPath.
func startProcess(logPath, addr string, argv ...string) (*process, error) {
	return startCommand(logPath, addr, exec.Command(argv[0], argv[1:]...))
}

// startCommand runs cmd, which serves HTTP on addr, with its output in
// logPath.
func startCommand(logPath, addr string, cmd *exec.Cmd) (*process, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	p := &process{cmd: cmd, addr: addr, logPath: logPath, client: &fasthttp.HostClient{Addr: addr, MaxConns: 4, ReadBufferSize: 64 << 10}}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	// The child holds its own descriptor; ours is no longer needed.
	logf.Close()
	p.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// startReplica starts bin/api against natsURL, with extra flags if any.
// The clock is pinned so that "current season" and current matchdays are
// the same in every run.
func startReplica(env *benchEnv, name, natsURL string, extra ...string) (*process, error) {
	// The load generator stands for a proxy in front (docs/api.md's
	// --trusted-proxies): the read rows' anonymous callers come in
	// X-Forwarded-For, each with a day's budget no run spends.
	args := append([]string{"--nats", natsURL, "--now", "2026-03-13T12:00:00Z",
		"--log-level", "info", "--drain", "0s",
		"--trusted-proxies", "127.0.0.1/32", "--anonymous-per-day", "1000000000"}, extra...)
	return startBound(env.logPath(name), true, append([]string{env.apiBin}, args...)...)
}

// get fetches path with the given headers and returns status, headers and
// a copy of the body.
func (p *process) get(path string, hdr map[string]string) (int, map[string]string, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + p.addr + path)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if err := p.client.DoTimeout(req, resp, 10*time.Second); err != nil {
		return 0, nil, nil, err
	}
	headers := map[string]string{}
	resp.Header.VisitAll(func(k, v []byte) { headers[string(k)] = string(v) })
	return resp.StatusCode(), headers, bytes.Clone(resp.Body()), nil
}

// waitReady polls /readyz every millisecond and returns the time from the
// process start to the first 200: start-up as an operator sees it.
func (p *process) waitReady(timeout time.Duration) (time.Duration, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return 0, fmt.Errorf("%s exited before it was ready (%v); its log ends: %s", p.cmd.Path, p.cmd.ProcessState, p.logTail())
		default:
		}
		if code, _, _, err := p.get("/readyz", nil); err == nil && code == fasthttp.StatusOK {
			return time.Since(p.started), nil
		}
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("%s not ready after %s", p.addr, timeout)
}

// logTail is the end of the process's log, for an error message: the
// temporary directory holding it is gone after the run.
func (p *process) logTail() string {
	raw, _ := os.ReadFile(p.logPath)
	return strings.TrimSpace(string(raw[max(0, len(raw)-600):]))
}

// metric reads one unlabelled sample from the admin listener's /metrics.
func (p *process) metric(name string) (float64, error) {
	v, err := p.metrics(name)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// metrics reads the samples named, in order, from one scrape of the admin
// listener's /metrics.
func (p *process) metrics(names ...string) ([]float64, error) {
	code, body, err := fasthttp.GetTimeout(nil, "http://"+p.admin+"/metrics", 10*time.Second)
	if err != nil {
		return nil, err
	}
	if code != fasthttp.StatusOK {
		return nil, fmt.Errorf("metrics of %s: status %d", p.admin, code)
	}
	vals, found := make([]float64, len(names)), make([]bool, len(names))
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		for i, name := range names {
			if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok && !found[i] {
				if vals[i], err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
					return nil, fmt.Errorf("metric %s: %w", name, err)
				}
				found[i] = true
			}
		}
	}
	for i, name := range names {
		if !found[i] {
			return nil, fmt.Errorf("metric %s not found", name)
		}
	}
	return vals, nil
}

// rss is the resident set of the process from /proc, in bytes.
func (p *process) rss() (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", p.cmd.Process.Pid)
}

// cpu is the CPU time, user and system, the process and its children
// (nginx's workers) have used so far, from /proc. Per request it is a
// steadier figure than throughput on a machine shared with other work:
// time the server waits for a core does not count.
func (p *process) cpu() time.Duration {
	pid := p.cmd.Process.Pid
	total := procCPU(pid)
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, c := range strings.Fields(string(raw)) {
		if n, err := strconv.Atoi(c); err == nil {
			total += procCPU(n)
		}
	}
	return total
}

// procCPU is utime + stime of one process (fields 14 and 15 of
// /proc/PID/stat, in clock ticks of 10 ms), 0 if it is gone.
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// stop ends the process with SIGTERM (a replica drains, with --drain 0s
// at once) and kills it if it is still there after five seconds.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
