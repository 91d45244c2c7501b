package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRequestsComeFromManyCallers: the read rows' requests alternate
// between the registered clients' tokens and the anonymous addresses a
// trusted proxy names, each taken in turn (issue 38), and a job with one
// kind of caller sends that kind only.
func TestRequestsComeFromManyCallers(t *testing.T) {
	tests := []struct {
		name    string
		callers callers
		want    []string // the caller's header of requests 0, 1, 2, …
	}{
		{"both", callers{Tokens: []string{"a", "b", "c"}, Anonymous: 2}, []string{
			"X-Auth-Token: a", "X-Forwarded-For: 10.0.0.0", "X-Auth-Token: b", "X-Forwarded-For: 10.0.0.1",
			"X-Auth-Token: c", "X-Forwarded-For: 10.0.0.0", "X-Auth-Token: a"}},
		{"tokens only", callers{Tokens: []string{"a", "b"}}, []string{"X-Auth-Token: a", "X-Auth-Token: b", "X-Auth-Token: a"}},
		{"anonymous only", callers{Anonymous: 70000}, []string{"X-Forwarded-For: 10.0.0.0", "X-Forwarded-For: 10.0.0.1"}},
		{"addresses beyond 256", callers{Tokens: []string{"a"}, Anonymous: 1000}, []string{
			"X-Auth-Token: a", "X-Forwarded-For: 10.0.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := loadJob{Addr: "127.0.0.1:1", Path: "/v1/competitions/1", Callers: tt.callers}
			for n, want := range tt.want {
				req := string(job.request(nil, int64(n)))
				if !strings.Contains(req, "\r\n"+want+"\r\n") || strings.Count(req, "X-Auth-Token")+strings.Count(req, "X-Forwarded-For") != 1 {
					t.Errorf("request %d:\n%q\nwant one caller header, %q", n, req, want)
				}
			}
		})
	}
	// The 1000th address of a thousand: 10.0.3.231.
	job := loadJob{Path: "/", Callers: callers{Tokens: []string{"a"}, Anonymous: 1000}}
	if req := string(job.request(nil, 2*999+1)); !strings.Contains(req, "X-Forwarded-For: 10.0.3.231\r\n") {
		t.Errorf("request 1999: %q, want address 10.0.3.231", req)
	}
}

// TestLoadCountsEveryAnsweredRequest: a server that counts what it answers
// (on a real listener) answered exactly the requests the load generator
// reports, timed and checks together, so that a row's CPU per request
// and its cache misses are over every request the server served.
func TestLoadCountsEveryAnsweredRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var answered atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					req.Body.Close()
					answered.Add(1)
					if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
						return
					}
				}
			}()
		}
	}()
	job := loadJob{Addr: ln.Addr().String(), Path: "/", Callers: callers{Tokens: []string{"a"}}, Conns: 3, For: 100 * time.Millisecond}
	out, err := job.run()
	if err != nil {
		t.Fatal(err)
	}
	r := loadResult{Requests: len(out.Lat), Checks: out.Checks}
	if out.Checks != job.Conns || r.answered() != int(answered.Load()) {
		t.Errorf("reported %d timed and %d checks (answered %d), the server answered %d; want a check a connection and every answer counted",
			len(out.Lat), out.Checks, r.answered(), answered.Load())
	}
}
