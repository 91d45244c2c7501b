package main

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/valyala/fasthttp"
)

// load sends requests from conns connections for d and returns requests
// per second. next builds the i-th request.
func load(b *testing.B, addr string, conns int, d time.Duration, next func(i int64, req *fasthttp.Request)) float64 {
	b.Helper()
	client := &fasthttp.HostClient{Addr: addr, MaxConns: conns}
	var done atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for time.Now().Before(stop) {
				n := done.Add(1)
				req.Reset()
				next(n, req)
				if err := client.Do(req, resp); err != nil || resp.StatusCode() != 200 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed", f, done.Load())
	}
	return float64(done.Load()) / d.Seconds()
}

// bare serves body with the same headers as ours from a plain fasthttp
// handler: the ceiling any Go server on this machine can reach.
func bare(b *testing.B, body []byte, headers map[string]string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		for k, v := range headers {
			ctx.Response.Header.Set(k, v)
		}
		ctx.Response.SetBodyRaw(body)
	}}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String()
}

// BenchmarkServe measures requests per second for a cached league table and
// for cache misses (a table rendered for a new key every request), beside a
// bare fasthttp handler writing the same bytes with the same headers, with
// the same load generator and connections in the same run. Run it with
// -benchtime=1x: each iteration is a timed load of a few seconds.
func BenchmarkServe(b *testing.B) {
	var missSeq atomic.Int64
	// No --public-url: links come from the request's Host, which is then
	// part of the cache key, so that the miss load below misses.
	r := startReplica(b, "", "--now", "2026-03-13T12:00:00Z")
	s := r.store()
	importFiles(b, s, "openfootball-football-json/2015-16/en.1.json", "openfootball-football-json/2025-26/en.1.json")
	// A registered client with room for the whole load: the limits are
	// part of every request's cost, as in production.
	token := addClient(b, s, "bench", model.TierRegistered, 1_000_000)
	r.waitApplied(s)
	// The 2015-16 table, found by season: competition ids depend on the
	// order of the import.
	var comps []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(r.do("GET", "/v1/competitions?season=2015", nil).body, &comps); err != nil || len(comps) != 1 {
		b.Fatalf("the competitions of 2015: %+v, %v", comps, err)
	}
	path := fmt.Sprintf("/v1/competitions/%d/leagueTable", comps[0].ID)
	first := r.do("GET", path, map[string]string{"X-Auth-Token": token})
	headers := map[string]string{}
	for k := range first.header {
		if k != "Content-Length" && k != "Date" { // the server sets these
			headers[k] = first.header.Get(k)
		}
	}
	bareAddr := bare(b, first.body, headers)
	addr := strings.TrimPrefix(r.base, "http://")
	const conns = 32
	d := 3 * time.Second
	for i := 0; i < b.N; i++ {
		cached := load(b, addr, conns, d, func(_ int64, req *fasthttp.Request) {
			req.SetRequestURI("http://" + addr + path)
			req.Header.Set("X-Auth-Token", token)
		})
		baseline := load(b, bareAddr, conns, d, func(_ int64, req *fasthttp.Request) {
			req.SetRequestURI("http://" + bareAddr + path)
		})
		// A distinct Host makes a distinct cache key: every request
		// renders the table's JSON and ETag afresh. The Host goes in the
		// URI (fasthttp takes the header from it; the client still
		// connects to addr), and the counter runs on over iterations so
		// that no key is asked twice.
		const missSeries = `fd_render_cache_total{result="miss"}`
		before := r.metric(missSeries)
		miss := load(b, addr, conns, d, func(_ int64, req *fasthttp.Request) {
			n := missSeq.Add(1)
			req.SetRequestURI(fmt.Sprintf("http://h%d.test%s?matchday=%d", n, path, 1+n%38))
			req.Header.Set("X-Auth-Token", token)
		})
		b.ReportMetric((r.metric(missSeries)-before)/(miss*d.Seconds()), "misses/request")
		b.ReportMetric(cached, "cached-req/s")
		b.ReportMetric(miss, "miss-req/s")
		b.ReportMetric(baseline, "bare-req/s")
		b.ReportMetric(cached/baseline, "cached/bare")
		b.ReportMetric(miss/baseline, "miss/bare")
	}
}
