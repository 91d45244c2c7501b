package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// loadResult is what one load run measured.
type loadResult struct {
	Requests int
	Elapsed  time.Duration
	lat      []time.Duration
	// CPU is the server's CPU time during the run, when measured.
	CPU time.Duration
}

func (r loadResult) rps() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// merge pools the samples of several rounds, so that the percentiles are
// over every request of every round.
func (r loadResult) merge(o loadResult) loadResult {
	return loadResult{Requests: r.Requests + o.Requests, Elapsed: r.Elapsed + o.Elapsed, lat: append(r.lat, o.lat...), CPU: r.CPU + o.CPU}
}

// cpuPerRequest is the server's CPU time per request in microseconds.
func (r loadResult) cpuPerRequest() float64 {
	return float64(r.CPU.Microseconds()) / float64(max(r.Requests, 1))
}

func (r loadResult) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	slices.Sort(r.lat)
	return r.lat[min(len(r.lat)-1, int(float64(len(r.lat))*p))]
}

// requestFunc fills the n-th request of a run.
type requestFunc func(n int64, req *fasthttp.Request)

// closedLoop keeps conns connections busy for d, each sending its next
// request as soon as the previous answer arrived: peak throughput.
func closedLoop(addr string, conns int, d time.Duration, next requestFunc) (loadResult, error) {
	client := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadBufferSize: 64 << 10}
	var seq, failed atomic.Int64
	lats := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for w := range conns {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			mine := make([]time.Duration, 0, 1<<14)
			for {
				t0 := time.Now()
				if !t0.Before(stop) {
					break
				}
				req.Reset()
				next(seq.Add(1), req)
				if err := client.Do(req, resp); err != nil || resp.StatusCode() != fasthttp.StatusOK {
					failed.Add(1)
				}
				mine = append(mine, time.Since(t0))
			}
			lats[w] = mine
		})
	}
	wg.Wait()
	return collect(lats, time.Since(start), failed.Load())
}

// openLoopJob is one open-loop run, done by a child process of its own
// (the bench binary started again with --open-loop) so that the latency it
// records is not the bench process's: that process holds the NATS server
// and the world, and its garbage collector would pause the requests' clock
// whatever the server under test does.
type openLoopJob struct {
	Addr, URI, Token string
	Rate             float64
	Workers          int
	For              time.Duration
}

// runOpenLoop runs job in a child pinned to cpus and returns what it
// measured.
func runOpenLoop(env *benchEnv, cpus string, job openLoopJob) (loadResult, error) {
	dir, err := os.MkdirTemp(env.tmp, "open-loop-")
	if err != nil {
		return loadResult{}, err
	}
	defer os.RemoveAll(dir)
	raw, err := json.Marshal(job)
	if err != nil {
		return loadResult{}, err
	}
	jobFile, out := filepath.Join(dir, "job.json"), filepath.Join(dir, "latencies")
	if err := os.WriteFile(jobFile, raw, 0o644); err != nil {
		return loadResult{}, err
	}
	argv := pinned(cpus, env.self, "--open-loop", jobFile, "--open-loop-out", out)
	if msg, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return loadResult{}, fmt.Errorf("open-loop load generator: %v: %s", err, msg)
	}
	raw, err = os.ReadFile(out)
	if err != nil {
		return loadResult{}, err
	}
	var res struct {
		Elapsed time.Duration
		Lat     []time.Duration
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return loadResult{}, fmt.Errorf("open-loop results: %w", err)
	}
	return loadResult{Requests: len(res.Lat), Elapsed: res.Elapsed, lat: res.Lat}, nil
}

// openLoopMain is the child's side of runOpenLoop.
func openLoopMain(jobFile, out string) error {
	raw, err := os.ReadFile(jobFile)
	if err != nil {
		return err
	}
	var job openLoopJob
	if err := json.Unmarshal(raw, &job); err != nil {
		return err
	}
	r, err := openLoop(job)
	if err != nil {
		return err
	}
	raw, err = json.Marshal(struct {
		Elapsed time.Duration
		Lat     []time.Duration
	}{r.Elapsed, r.lat})
	if err != nil {
		return err
	}
	return os.WriteFile(out, raw, 0o644)
}

// openLoop sends job.Rate requests per second for job.For whatever the
// answers do: request i is due at start+i/rate and its latency counts from
// then, so a slow answer delays the requests behind it and shows in their
// latency instead of quietly lowering the rate (no coordinated omission).
// Every worker opens its connection with one request before the clock
// starts, so that no connection set-up is counted.
func openLoop(job openLoopJob) (loadResult, error) {
	client := &fasthttp.HostClient{Addr: job.Addr, MaxConns: job.Workers, ReadBufferSize: 64 << 10}
	total := int64(job.Rate * job.For.Seconds())
	var seq, failed atomic.Int64
	lats := make([][]time.Duration, job.Workers)
	var wg, warm sync.WaitGroup
	warm.Add(job.Workers)
	begin := make(chan time.Time)
	for w := range job.Workers {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			do := func() {
				req.Reset()
				req.SetRequestURI(job.URI)
				req.Header.Set("X-Auth-Token", job.Token)
				if err := client.Do(req, resp); err != nil || resp.StatusCode() != fasthttp.StatusOK {
					failed.Add(1)
				}
			}
			do()
			warm.Done()
			start := <-begin
			mine := make([]time.Duration, 0, total/int64(job.Workers)+1024)
			for {
				i := seq.Add(1) - 1
				if i >= total {
					break
				}
				due := start.Add(time.Duration(float64(i) / job.Rate * float64(time.Second)))
				time.Sleep(time.Until(due))
				do()
				mine = append(mine, time.Since(due))
			}
			lats[w] = mine
		})
	}
	warm.Wait()
	failed.Store(0)
	start := time.Now().Add(10 * time.Millisecond)
	for range job.Workers {
		begin <- start
	}
	wg.Wait()
	return collect(lats, time.Since(start), failed.Load())
}

func collect(lats [][]time.Duration, elapsed time.Duration, failed int64) (loadResult, error) {
	r := loadResult{Elapsed: elapsed}
	for _, l := range lats {
		r.lat = append(r.lat, l...)
	}
	r.Requests = len(r.lat)
	if failed > 0 {
		return r, fmt.Errorf("%d of %d requests failed", failed, r.Requests)
	}
	return r, nil
}

// bareResponse is one response the bare server replays: the bytes and
// headers our replica sent for the same path.
type bareResponse struct {
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
}

// serveBare is the baseline server (the bench binary started again with
// --bare-serve): a plain fasthttp handler writing, per path, the bytes and
// headers captured from our replica. It runs as a process of its own, as
// the replica does, so that neither shares the load generator's process.
func serveBare(file, listen string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var byPath map[string]bareResponse
	if err := json.Unmarshal(raw, &byPath); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	// No default Server or Content-Type header: the captured headers are
	// the whole set, as in our replica's responses. The same write buffer
	// as the replica's (internal/httpapi), so that the column measures the
	// work per response, not a buffer setting either could change.
	srv := &fasthttp.Server{NoDefaultServerHeader: true, NoDefaultContentType: true, WriteBufferSize: 32 << 10, Handler: func(ctx *fasthttp.RequestCtx) {
		r, ok := byPath[string(ctx.Path())]
		if !ok {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		for k, v := range r.Headers {
			ctx.Response.Header.Set(k, v)
		}
		ctx.Response.SetBodyRaw(r.Body)
	}}
	return srv.Serve(ln)
}
