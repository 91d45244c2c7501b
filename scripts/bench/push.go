package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pushRows measures the live event stream (/v1/events): an edit's
// Fixture.Update on the open streams of every replica beside a plain NATS
// subscriber of the same subject, and the memory an idle open stream costs
// a replica.
func pushRows(ctx context.Context, env *benchEnv, w *world, reps []*process, ps paths, token string) error {
	et, err := newEditTarget(ctx, w, ps)
	if err != nil {
		return err
	}
	defer et.close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	streams := make([]chan time.Time, len(reps))
	for i, p := range reps {
		if streams[i], err = watchEvents(sctx, p, "?fixture="+strconv.Itoa(et.f.ID), token); err != nil {
			return err
		}
	}
	var all, raw []time.Duration
	for i := range env.Edits {
		t0 := time.Now()
		d, err := et.edit(ctx, i, t0)
		if err != nil {
			return err
		}
		raw = append(raw, d)
		worst := time.Duration(0)
		for j, c := range streams {
			select {
			case t := <-c:
				worst = max(worst, t.Sub(t0))
			case <-time.After(5 * time.Second):
				return fmt.Errorf("edit %d: no event on replica %d's stream", i, j)
			}
		}
		all = append(all, worst)
	}
	a, r := loadResult{lat: all}, loadResult{lat: raw}
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		env.add(row{Section: "push", What: fmt.Sprintf("edit → SSE event on all %d replicas, %s", len(reps), q.name),
			Ours: ms(a.pct(q.p)), Baseline: "plain NATS subscriber " + ms(r.pct(q.p)), Ratio: float64(a.pct(q.p)) / float64(r.pct(q.p)),
			Note:   fmt.Sprintf("%d edits of fixture %d, one open /v1/events?fixture= stream per replica", len(all), ps.fixtureID),
			Values: map[string]float64{"ours_ms": msf(a.pct(q.p)), "baseline_ms": msf(r.pct(q.p))}})
	}
	return idleStreamsRow(env, w, token)
}

// watchEvents opens an event stream on p and sends the time each
// Fixture.Update arrives.
func watchEvents(ctx context.Context, p *process, query, token string) (chan time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+p.addr+"/v1/events"+query, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Auth-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET /v1/events on %s: status %d", p.addr, resp.StatusCode)
	}
	c := make(chan time.Time, 16)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: Fixture.Update" {
				c <- time.Now()
			}
		}
	}()
	return c, nil
}

// idleStreamsRow holds many idle streams open on a replica of its own and
// reports what each costs it in resident memory.
func idleStreamsRow(env *benchEnv, w *world, token string) error {
	n := env.Small / 20
	p, err := startBound(env.logPath("push-streams"), true, env.apiBin, "--nats", w.url(), "--now", "2026-03-13T12:00:00Z",
		"--log-level", "info", "--drain", "0s", "--streams-per-client", strconv.Itoa(n),
		"--conns-per-ip", strconv.Itoa(n+16))
	if err != nil {
		return err
	}
	defer p.stop()
	if _, err := p.waitReady(env.ReadyTimeout); err != nil {
		return err
	}
	time.Sleep(env.MemorySettle)
	before, err := p.rss()
	if err != nil {
		return err
	}
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	sem := make(chan struct{}, 64)
	for range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := openIdleStream(p.addr, token)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				firstErr = err
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	time.Sleep(env.MemorySettle)
	after, err := p.rss()
	if err != nil {
		return err
	}
	open, err := p.metric("fd_event_streams_open")
	if err != nil {
		return err
	}
	per := (after - before) / float64(n)
	env.add(row{Section: "push", What: "idle open event streams on one replica", Ours: fmt.Sprintf("%.0f held, %.1f KiB each", open, per/1024),
		Baseline: fmt.Sprintf("RSS %.0f → %.0f MiB", before/(1<<20), after/(1<<20)),
		Note:     "resident memory growth divided by the streams held (fd_event_streams_open)",
		Values:   map[string]float64{"streams": open, "bytes_per_stream": per}})
	return nil
}

// openIdleStream opens a stream on a raw connection and reads its headers
// and first comment, so that the replica holds it.
func openIdleStream(addr, token string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c, "GET /v1/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nX-Auth-Token: %s\r\n\r\n", addr, token)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), ": footballd events") {
		k, err := c.Read(buf)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("open stream: %w (got %q)", err, got.String())
		}
		got.Write(buf[:k])
	}
	if !strings.HasPrefix(got.String(), "HTTP/1.1 200") {
		c.Close()
		return nil, fmt.Errorf("open stream: %q", got.String())
	}
	return c, nil
}
