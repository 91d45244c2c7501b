package httpapi

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPipelineStopsAtAMalformedRequest: of 1,000 requests pipelined on one
// connection, with a malformed one in the middle, every one before it is
// answered, then it gets its 400, then the connection closes: no reset
// loses the answers already sent.
func TestPipelineStopsAtAMalformedRequest(t *testing.T) {
	s, _ := newTestServer(t, true, Options{AnonymousPerDay: 1_000_000})
	addr := listen(t, s)
	const n, bad = 1000, 500
	var b strings.Builder
	for i := range n {
		if i == bad {
			b.WriteString("GET /v1/competitions HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n")
			continue
		}
		fmt.Fprintf(&b, "GET /v1/competitions/%d HTTP/1.1\r\nHost: a\r\n\r\n", i)
	}
	x := converse(t, addr, b.String(), 10*time.Second)
	if len(x.statuses) != bad+1 || x.end != io.EOF {
		t.Fatalf("%d responses, then %v; want %d, then the close", len(x.statuses), x.end, bad+1)
	}
	for i, st := range x.statuses[:bad] {
		if st != 404 {
			t.Fatalf("response %d: %d, want 404 (no competition)", i, st)
		}
	}
	if x.statuses[bad] != 400 || !x.closes[bad] {
		t.Errorf("response to the malformed request: %d (close %v), want 400 with Connection: close", x.statuses[bad], x.closes[bad])
	}
}
