package main

import (
	"strings"
	"testing"
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
