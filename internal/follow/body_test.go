package follow

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// countingReader is an endless source of bytes that counts what is read.
type countingReader struct{ n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	c.n += int64(len(p))
	return len(p), nil
}

// TestReadBody: a declared length over the limit is refused before a
// byte is read; an unknown length is read no further than the limit and
// one byte; what fits comes back whole, in a buffer no larger than it.
func TestReadBody(t *testing.T) {
	const limit = 1 << 20
	body := bytes.Repeat([]byte("0123456789"), 70_000) // 700,000 bytes: several chunks
	tests := []struct {
		name     string
		r        io.Reader
		declared int64
		want     []byte
		err      string
		maxRead  int64 // of an endless reader
	}{
		{"declared over the limit", &countingReader{}, 2 << 30, nil, "declares 2147483648 bytes (Content-Length), over the limit of 1048576 (--max-bytes): nothing read", 0},
		{"unknown length, endless", &countingReader{}, -1, nil, "larger than the limit of 1048576 bytes", limit + 1},
		{"declared, within", bytes.NewReader(body), int64(len(body)), body, "", 0},
		{"declared, cut short", bytes.NewReader(body[:100]), int64(len(body)), nil, "the body ended after 100 of 700000 bytes", 0},
		{"unknown length, within", bytes.NewReader(body), -1, body, "", 0},
		{"unknown length, exactly the limit", bytes.NewReader(bytes.Repeat([]byte("y"), limit)), -1, bytes.Repeat([]byte("y"), limit), "", 0},
		{"unknown length, one byte over", bytes.NewReader(bytes.Repeat([]byte("y"), limit+1)), -1, nil, "larger than the limit", 0},
		{"empty", strings.NewReader(""), -1, []byte{}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readBody(tt.r, tt.declared, limit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
			} else if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("%d bytes, %v; want %d bytes", len(got), err, len(tt.want))
			}
			if c, ok := tt.r.(*countingReader); ok && c.n > tt.maxRead {
				t.Errorf("read %d bytes, want at most %d", c.n, tt.maxRead)
			}
			if cap(got) > max(len(got), firstChunk) {
				t.Errorf("a buffer of %d bytes for %d", cap(got), len(got))
			}
		})
	}
}
