// Package wiretest has what the tests of package wire and of the HTTP API
// share to check the bytes of responses.
package wiretest

import (
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Body is a JSON body of exactly n bytes whose content differs at every
// offset (within a repeat of 2^16), so that a byte sent from the wrong
// offset shows.
func Body(n int) []byte {
	r := mrand.New(mrand.NewPCG(uint64(n), 1))
	b := make([]byte, 0, n)
	b = append(b, `{"big":"`...)
	for len(b) < n-2 {
		v := r.Uint64()
		for i := 0; i < 8 && len(b) < n-2; i++ {
			b = append(b, 'a'+byte(v>>(8*i))%26)
		}
	}
	return append(b, `"}`...)
}

// FirstDiff is the first offset at which a and b differ, or the shorter
// one's length.
func FirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// MaxTCPBuffer is the most a TCP socket's send (tcp_wmem) or receive
// (tcp_rmem) buffer grows to.
func MaxTCPBuffer(t testing.TB, sysctl string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/" + sysctl)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("%s %q: %v", sysctl, b, err)
	}
	return n
}
