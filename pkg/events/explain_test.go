package events

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestExplainNamesOnlyAFreshRefusal: a time-out right after the server
// refused the connection a subject is that refusal, named; the same
// time-out once the refusal is long past is left as it is (the connection
// keeps its last error for ever).
func TestExplainNamesOnlyAFreshRefusal(t *testing.T) {
	const denied = "football.denied"
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true,
		Users: []*server.User{{Username: "api", Password: "b", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{denied}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	url := "nats://api:b@" + srv.Addr().String()
	defer func(d time.Duration) { violationFresh = d }(violationFresh)
	violationFresh = 300 * time.Millisecond
	for _, c := range []struct {
		name  string
		after time.Duration // between the refusal and the time-out
		named bool
	}{
		{"at once", 0, true},
		{"long after", 2 * violationFresh, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc, err := Dial{URL: url, Name: "test"}.Conn()
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_, reqErr := nc.RequestWithContext(ctx, denied, nil)
			cancel()
			if _, ok := violations.Load(nc); !ok {
				// The refusal reaches the error handler on its own
				// goroutine: wait for it (by hand: natstest, whose
				// CheckFor this is, imports this package).
				deadline := time.Now().Add(5 * time.Second)
				for _, ok = violations.Load(nc); !ok && time.Now().Before(deadline); _, ok = violations.Load(nc) {
					time.Sleep(5 * time.Millisecond)
				}
			}
			// The gap under test, not a wait for something to happen.
			time.Sleep(c.after)
			var pe *PermissionError
			if got := errors.As(Explain(nc, reqErr), &pe); got != c.named {
				t.Errorf("explained as a refusal: %v, want %v (%v)", got, c.named, Explain(nc, reqErr))
			}
			if c.named && pe.Subject != denied {
				t.Errorf("subject %q", pe.Subject)
			}
		})
	}
}
