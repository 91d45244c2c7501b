package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The load generator is the bench binary started again with --load, in a
// process of its own pinned to the load cores: its CPU is then its own
// (getrusage), and the bench process's garbage collector (it holds the
// NATS server and the world) never pauses its clock.
//
// Its cost per request must not grow with the body, or large-body rows
// measure the generator (issue 28: a Go client reading every body
// saturated near 0.9 GB/s; wrk, which reads every body into an 8 KiB
// buffer, spends about 70 µs a request at 350 KB on this machine and
// leaves nginx's core half idle). So it reads a response's head and
// discards the body with recv(MSG_TRUNC): for TCP the kernel drops the
// bytes without copying them. What remains per request is the kernel's
// receive path, which every client pays.

// loadJob is one load run.
type loadJob struct {
	Addr, Path string
	// Callers are whom the requests come from, in turn.
	Callers    callers
	Gzip, Miss bool
	// Matchdays and Run shape the miss row's requests: a new Host every
	// request (h<Run>-<n>.bench; links are absolute from the Host, so it
	// is part of the cache key) and ?matchday=1..Matchdays.
	Matchdays int
	Run       int64
	Conns     int
	For       time.Duration
	// Rate is the open loop's requests per second; 0 is a closed loop.
	Rate float64
}

// loadOut is what the child reports.
type loadOut struct {
	Elapsed time.Duration
	Lat     []time.Duration
	// Late is how late the generator sent each request of an open loop
	// after it could have: after its scheduled time, or after the answer
	// before it on its connection if that came later (a server's stall
	// is in Lat, not here). A request sent late counts its lateness in
	// Lat, so this is the instrument's share of it.
	Late []time.Duration
	// Checks counts the requests answered before the clock started: the
	// first on each connection, which checks that the server answers.
	// The server served them, so they count in its CPU per request.
	Checks   int
	Failed   int
	FirstErr string
}

// loadResult is what one or more runs measured on one server.
type loadResult struct {
	// Requests are those timed; Checks those answered before the clock
	// (loadOut.Checks).
	Requests, Checks int
	Elapsed          time.Duration
	lat, late        []time.Duration
	// CPU is the server's CPU time over the runs, LoadCPU the load
	// generator's own.
	CPU, LoadCPU time.Duration
	// Busy and Total are the server cores' busy and total clock ticks
	// over the runs, from /proc/stat.
	Busy, Total uint64
}

func (r loadResult) rps() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// answered is every request the server answered during the runs.
func (r loadResult) answered() int { return r.Requests + r.Checks }

// merge pools the samples of several rounds, so that the percentiles are
// over every request of every round.
func (r loadResult) merge(o loadResult) loadResult {
	return loadResult{Requests: r.Requests + o.Requests, Checks: r.Checks + o.Checks, Elapsed: r.Elapsed + o.Elapsed, lat: append(r.lat, o.lat...),
		late: append(r.late, o.late...), CPU: r.CPU + o.CPU, LoadCPU: r.LoadCPU + o.LoadCPU, Busy: r.Busy + o.Busy, Total: r.Total + o.Total}
}

func (r loadResult) pct(p float64) time.Duration { return percentile(r.lat, p) }

// latePct is the p-quantile of how late an open loop's requests were sent.
func (r loadResult) latePct(p float64) time.Duration { return percentile(r.late, p) }

// cpuPerRequest is the server's CPU time per request in microseconds.
func (r loadResult) cpuPerRequest() float64 {
	return float64(r.CPU.Nanoseconds()) / 1e3 / float64(max(r.answered(), 1))
}

// loadPerRequest is the load generator's CPU time per request in
// microseconds.
func (r loadResult) loadPerRequest() float64 {
	return float64(r.LoadCPU.Nanoseconds()) / 1e3 / float64(max(r.answered(), 1))
}

// busyShare is the share of the server cores' time that was not idle.
func (r loadResult) busyShare() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Busy) / float64(r.Total)
}

// saturated says whether the server cores were busy enough for a peak
// run to measure the server: below it the instrument or the machine set
// the pace and the row is invalid.
func (r loadResult) saturated() bool { return r.busyShare() >= 0.9 }

// loadRuns numbers the runs of the whole bench, so that a cache-miss run
// never asks for a key an earlier run cached.
var loadRuns atomic.Int64

// runLoad runs job in a child pinned to the load cores and measures the
// server's CPU and its cores' busy share around it.
func runLoad(env *benchEnv, cs cores, srv *process, job loadJob) (loadResult, error) {
	job.Run = loadRuns.Add(1)
	dir, err := os.MkdirTemp(env.tmp, "load-")
	if err != nil {
		return loadResult{}, err
	}
	defer os.RemoveAll(dir)
	raw, err := json.Marshal(job)
	if err != nil {
		return loadResult{}, err
	}
	jobFile, outFile := filepath.Join(dir, "job.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(jobFile, raw, 0o644); err != nil {
		return loadResult{}, err
	}
	argv := pinned(cs.load, env.self, "--load", jobFile, "--load-out", outFile)
	cmd := exec.Command(argv[0], argv[1:]...)
	cpu0 := srv.cpu()
	busy0, total0, err := coreTicks(cs.serverList)
	if err != nil {
		return loadResult{}, err
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		return loadResult{}, fmt.Errorf("load generator: %v: %s", err, msg)
	}
	busy1, total1, err := coreTicks(cs.serverList)
	if err != nil {
		return loadResult{}, err
	}
	cpu := srv.cpu() - cpu0
	if raw, err = os.ReadFile(outFile); err != nil {
		return loadResult{}, err
	}
	var out loadOut
	if err := json.Unmarshal(raw, &out); err != nil {
		return loadResult{}, fmt.Errorf("load generator's results: %w", err)
	}
	if out.Failed > 0 {
		return loadResult{}, fmt.Errorf("%d of %d requests failed, the first: %s", out.Failed, len(out.Lat), out.FirstErr)
	}
	return loadResult{Requests: len(out.Lat), Checks: out.Checks, Elapsed: out.Elapsed, lat: out.Lat, late: out.Late, CPU: cpu,
		LoadCPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), Busy: busy1 - busy0, Total: total1 - total0}, nil
}

// coreTicks sums the busy and total clock ticks of cores from /proc/stat.
// Idle and I/O wait are not busy; time stolen by the hypervisor counts in
// the total only, since the server did not have the core then.
func coreTicks(cores []int) (busy, total uint64, err error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	want := map[string]bool{}
	for _, c := range cores {
		want["cpu"+strconv.Itoa(c)] = true
	}
	for line := range bytes.Lines(raw) {
		f := bytes.Fields(line)
		if len(f) < 9 || !want[string(f[0])] {
			continue
		}
		var v [8]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(string(f[i+1]), 10, 64); err != nil {
				return 0, 0, fmt.Errorf("/proc/stat %s: %w", f[0], err)
			}
		}
		// user nice system idle iowait irq softirq steal
		busy += v[0] + v[1] + v[2] + v[5] + v[6]
		total += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
	}
	return busy, total, nil
}

// loadMain is the child's side of runLoad.
func loadMain(jobFile, outFile string) error {
	raw, err := os.ReadFile(jobFile)
	if err != nil {
		return err
	}
	var job loadJob
	if err := json.Unmarshal(raw, &job); err != nil {
		return err
	}
	out, err := job.run()
	if err != nil {
		return err
	}
	if raw, err = json.Marshal(out); err != nil {
		return err
	}
	return os.WriteFile(outFile, raw, 0o644)
}

// request appends the n-th request of the job to b.
func (job loadJob) request(b []byte, n int64) []byte {
	b = append(b, "GET "...)
	b = append(b, job.Path...)
	if job.Miss {
		b = append(b, "?matchday="...)
		b = strconv.AppendInt(b, 1+n%int64(max(1, job.Matchdays)), 10)
		b = append(b, " HTTP/1.1\r\nHost: h"...)
		b = strconv.AppendInt(b, job.Run, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ".bench"...)
	} else {
		b = append(b, " HTTP/1.1\r\nHost: "...)
		b = append(b, job.Addr...)
	}
	b = job.Callers.appendHeader(b, n)
	if job.Gzip {
		b = append(b, "\r\nAccept-Encoding: gzip"...)
	}
	return append(b, "\r\n\r\n"...)
}

// callers are whom the read rows' requests come from (issue 38): many
// clients, as a replica serving the public meets them, so that whatever
// per-client state a request touches (auth, limits, metrics) is in the
// measurement. Requests alternate between the registered clients' tokens
// (in turn) and anonymous addresses (in turn) that the trusted proxy the
// load generator stands for passes in X-Forwarded-For; a server that reads
// neither header (bare, nginx) serves the same bytes to all.
type callers struct {
	Tokens []string
	// Anonymous is how many addresses, 10.0.0.0 upwards, the anonymous
	// requests come from; 0 sends every request with a token.
	Anonymous int
}

// appendHeader appends the header that names the n-th request's caller,
// with the line break before it.
func (cs callers) appendHeader(b []byte, n int64) []byte {
	k, anonymous := n, cs.Anonymous > 0
	if len(cs.Tokens) > 0 && anonymous {
		k, anonymous = n/2, n%2 == 1
	}
	switch {
	case anonymous:
		a := k % int64(cs.Anonymous)
		b = append(b, "\r\nX-Forwarded-For: 10."...)
		b = strconv.AppendInt(b, a>>16&0xff, 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, a>>8&0xff, 10)
		b = append(b, '.')
		return strconv.AppendInt(b, a&0xff, 10)
	case len(cs.Tokens) > 0:
		b = append(b, "\r\nX-Auth-Token: "...)
		return append(b, cs.Tokens[k%int64(len(cs.Tokens))]...)
	}
	return b
}

// run opens the connections (each with one request before the clock
// starts, so that no set-up is counted) and runs the loop on each.
func (job loadJob) run() (loadOut, error) {
	r := &loadRun{job: job, total: int64(job.Rate * job.For.Seconds())}
	conns := make([]*client, job.Conns)
	for i := range conns {
		c, err := dial(job.Addr)
		if err != nil {
			return loadOut{}, err
		}
		defer c.close()
		if err := c.do(job.request(nil, r.seq.Add(1))); err != nil {
			return loadOut{}, fmt.Errorf("first request: %w", err)
		}
		conns[i] = c
	}
	lats, lates := make([][]time.Duration, job.Conns), make([][]time.Duration, job.Conns)
	r.start = time.Now()
	var wg sync.WaitGroup
	for w, c := range conns {
		wg.Go(func() { lats[w], lates[w] = r.loop(c) })
	}
	wg.Wait()
	out := loadOut{Elapsed: time.Since(r.start), Checks: len(conns), Failed: int(r.failed.Load())}
	if e, ok := r.firstErr.Load().(string); ok {
		out.FirstErr = e
	}
	for w, l := range lats {
		out.Lat = append(out.Lat, l...)
		out.Late = append(out.Late, lates[w]...)
	}
	return out, nil
}

// loadRun is a run's state, which its connections share.
type loadRun struct {
	job      loadJob
	total    int64 // an open loop's requests
	start    time.Time
	seq      atomic.Int64
	failed   atomic.Int64
	firstErr atomic.Value
}

// loop sends requests on c until the run ends, and returns their
// latencies and, in an open loop, how late each was sent (loadOut.Late).
func (r *loadRun) loop(c *client) (lat, late []time.Duration) {
	job := r.job
	lat = make([]time.Duration, 0, 1<<14)
	if job.Rate > 0 {
		late = make([]time.Duration, 0, 1<<14)
	}
	var buf []byte
	// free is when the connection's last answer came.
	var free time.Time
	for {
		// A closed loop sends as soon as the last answer came; an open
		// loop sends request k at start+k/rate and counts its latency
		// from then, so that a slow answer delays the requests behind it
		// and shows in their latency (no coordinated omission).
		due := time.Now()
		n := r.seq.Add(1)
		if job.Rate > 0 {
			k := n - int64(job.Conns) - 1
			if k >= r.total {
				break
			}
			due = r.start.Add(time.Duration(float64(k) / job.Rate * float64(time.Second)))
			time.Sleep(time.Until(due))
			late = append(late, time.Since(maxTime(due, free)))
		} else if !due.Before(r.start.Add(job.For)) {
			break
		}
		buf = job.request(buf[:0], n)
		if err := c.do(buf); err != nil {
			r.failed.Add(1)
			r.firstErr.CompareAndSwap(nil, err.Error())
			if c.redial() != nil {
				break
			}
		}
		free = time.Now()
		lat = append(lat, free.Sub(due))
	}
	return lat, late
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// client is one keep-alive HTTP/1.1 connection that reads a response's
// head and discards its body in the kernel.
type client struct {
	addr string
	c    *net.TCPConn
	raw  syscall.RawConn
	head []byte
	// sink is only an address range for recv(MSG_TRUNC), which checks
	// it but never writes it: its pages are never touched.
	sink []byte
}

func dial(addr string) (*client, error) {
	c := &client{addr: addr, head: make([]byte, 16<<10), sink: make([]byte, 4<<20)}
	return c, c.redial()
}

func (c *client) redial() error {
	if c.c != nil {
		c.c.Close()
	}
	conn, err := net.Dial("tcp", c.addr)
	if err != nil {
		return err
	}
	c.c = conn.(*net.TCPConn)
	c.raw, err = c.c.SyscallConn()
	return err
}

func (c *client) close() { c.c.Close() }

var (
	headEnd       = []byte("\r\n\r\n")
	contentLength = []byte("\r\nContent-Length:")
)

// do sends req and reads the answer, which must be a 200 with a
// Content-Length (every server here sends one).
func (c *client) do(req []byte) error {
	if _, err := c.c.Write(req); err != nil {
		return err
	}
	filled, end := 0, -1
	for end < 0 {
		if filled == len(c.head) {
			return fmt.Errorf("response head over %d bytes", len(c.head))
		}
		n, err := c.c.Read(c.head[filled:])
		if err != nil {
			return err
		}
		filled += n
		end = bytes.Index(c.head[:filled], headEnd)
	}
	head := c.head[:end+2]
	if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) {
		line, _, _ := bytes.Cut(head, []byte("\r\n"))
		return fmt.Errorf("status line %q", line)
	}
	// Every server here spells it so; any other spelling is looked for
	// in a lower-cased copy.
	i := bytes.Index(head, contentLength)
	if i < 0 {
		i = bytes.Index(bytes.ToLower(head), bytes.ToLower(contentLength))
	}
	if i < 0 {
		return errors.New("no Content-Length")
	}
	v, _, _ := bytes.Cut(head[i+len(contentLength):], []byte("\r\n"))
	size, err := strconv.Atoi(string(bytes.TrimSpace(v)))
	if err != nil {
		return fmt.Errorf("Content-Length %q", v)
	}
	return c.discard(size - (filled - end - len(headEnd)))
}

// discard drops the next n bytes of the connection without copying them.
func (c *client) discard(n int) error {
	for n > 0 {
		var got int
		var rerr error
		err := c.raw.Read(func(fd uintptr) bool {
			got, _, rerr = unix.Recvfrom(int(fd), c.sink[:min(n, len(c.sink))], unix.MSG_TRUNC)
			return rerr != unix.EAGAIN
		})
		if err != nil {
			return err
		}
		if rerr != nil {
			return rerr
		}
		if got == 0 {
			return errors.New("connection closed mid-body")
		}
		n -= got
	}
	if n < 0 {
		return errors.New("more bytes than Content-Length")
	}
	return nil
}
