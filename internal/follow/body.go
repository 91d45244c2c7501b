package follow

import (
	"errors"
	"fmt"
	"io"
)

// A body is read into memory whole, since the importer parses bytes, but
// never more of it than the limit (--max-bytes) and never with more
// than one spare chunk: a declared length over the limit is refused
// before anything is read; a declared length within it is read into one
// buffer of that size; a body of unknown length (chunked, or
// decompressed by the transport) is read in chunks, up to the limit and
// one byte, and copied into one buffer once whole, each chunk dropped as
// it is copied. The poll that read a body owns it until its document
// is written or refused.

// Chunks of a body of unknown length start small (most feeds are a few
// hundred kilobytes) and double up to maxChunk.
const (
	firstChunk = 32 << 10
	maxChunk   = 4 << 20
)

// tooLarge is the error of a body over the limit.
func tooLarge(limit int64) error {
	return fmt.Errorf("the body is larger than the limit of %d bytes (--max-bytes)", limit)
}

// readBody reads r, of declared length (-1: unknown), within limit.
func readBody(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared > limit {
		return nil, fmt.Errorf("the source declares %d bytes (Content-Length), over the limit of %d (--max-bytes): nothing read", declared, limit)
	}
	if declared >= 0 {
		buf := make([]byte, declared)
		n, err := io.ReadFull(r, buf)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the body ended after %d of %d bytes", n, declared)
		}
		if err != nil {
			return nil, fmt.Errorf("read the body: %w", err)
		}
		return buf, nil
	}
	var chunks [][]byte
	var total int64
	size := int64(firstChunk)
	for {
		chunk := make([]byte, min(size, limit+1-total))
		n, err := io.ReadFull(r, chunk)
		total += int64(n)
		chunks = append(chunks, chunk[:n])
		switch {
		case total > limit:
			return nil, tooLarge(limit)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return join(chunks, total), nil
		case err != nil:
			return nil, fmt.Errorf("read the body: %w", err)
		}
		size = min(2*size, maxChunk)
	}
}

// join copies chunks into one buffer of total bytes, dropping each chunk
// once copied, so that the collector may take it back at once.
func join(chunks [][]byte, total int64) []byte {
	if len(chunks) == 1 {
		return chunks[0]
	}
	out := make([]byte, 0, total)
	for i := range chunks {
		out = append(out, chunks[i]...)
		chunks[i] = nil
	}
	return out
}
