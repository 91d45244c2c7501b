package natstest

import (
	"testing"
	"time"
)

// CheckFor calls f every interval until it returns nil, and fails the test
// with f's last error once total has passed without. It is how a test
// waits for something to happen (a replica to apply, a server to answer):
// never a fixed sleep, which is too short on a loaded machine and wasted
// on an idle one. Call it from the test's goroutine.
func CheckFor(tb testing.TB, total, interval time.Duration, f func() error) {
	tb.Helper()
	deadline := time.Now().Add(total)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("not within %s: %v", total, err)
		}
		time.Sleep(interval)
	}
}
