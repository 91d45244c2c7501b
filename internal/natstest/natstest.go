// Package natstest gives tests a real JetStream server: embedded in-process,
// on a random loopback port, with its storage in the test's temp dir.
package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/pkg/events"
)

// MustStart starts a server that stops when the test ends.
func MustStart(tb testing.TB) *natsembed.Server {
	tb.Helper()
	srv, err := natsembed.Start(natsembed.Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("start embedded nats: %v", err)
	}
	tb.Cleanup(srv.Stop)
	return srv
}

// MustOpen connects a new store to srv, closed when the test ends.
func MustOpen(tb testing.TB, srv *natsembed.Server) *events.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := events.Connect(ctx, srv.URL(), tb.Name(), events.StreamConfig{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}
