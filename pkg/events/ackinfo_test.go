package events

import (
	"testing"
	"time"
)

// AckInfo is ackInfo for the tests of package events_test, which compare
// it with jetstream's own reading on a server's messages.
var AckInfo = ackInfo

func TestAckInfoLayouts(t *testing.T) {
	const ts = 1763900000123456789
	for _, c := range []struct {
		name, reply        string
		seq, cseq, pending uint64
		ok                 bool
	}{
		{"v1", "$JS.ACK.FOOTBALL.c1.1.42.7.1763900000123456789.5", 42, 7, 5, true},
		{"v2", "$JS.ACK._.ACCHASH.FOOTBALL.c1.1.42.7.1763900000123456789.5.rand", 42, 7, 5, true},
		{"v2 without the last token", "$JS.ACK.dom.ACCHASH.FOOTBALL.c1.1.42.7.1763900000123456789.0", 42, 7, 0, true},
		{"not an ack subject", "_INBOX.abc.1.42.7.1763900000123456789.5.x.y", 0, 0, 0, false},
		{"too few tokens", "$JS.ACK.FOOTBALL.c1.1.42.7.1763900000123456789", 0, 0, 0, false},
		{"eight tokens after the prefix", "$JS.ACK.x.FOOTBALL.c1.1.42.7.1763900000123456789.5", 0, 0, 0, false},
		{"more tokens than v2", "$JS.ACK._.H.FOOTBALL.c1.1.42.7.1763900000123456789.5.r.extra", 0, 0, 0, false},
		{"sign in a number", "$JS.ACK.FOOTBALL.c1.1.-42.7.1763900000123456789.5", 0, 0, 0, false},
		{"consumer sequence not a number", "$JS.ACK.FOOTBALL.c1.1.42.x7.1763900000123456789.5", 0, 0, 0, false},
		{"empty number", "$JS.ACK.FOOTBALL.c1.1.42.7.1763900000123456789.", 0, 0, 0, false},
		{"number past 19 digits", "$JS.ACK.FOOTBALL.c1.1.42.7.17639000001234567890.5", 0, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq, cseq, pending, at, ok := ackInfo(c.reply)
			if ok != c.ok || seq != c.seq || cseq != c.cseq || pending != c.pending {
				t.Fatalf("ackInfo(%q) = %d, %d, %d, ok %v; want %d, %d, %d, ok %v", c.reply, seq, cseq, pending, ok, c.seq, c.cseq, c.pending, c.ok)
			}
			if ok && !at.Equal(time.Unix(0, ts)) {
				t.Fatalf("time %v, want %v", at, time.Unix(0, ts))
			}
		})
	}
}
