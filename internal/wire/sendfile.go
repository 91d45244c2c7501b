package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"runtime"

	"golang.org/x/sys/unix"
)

// fileBody is the body stream of a response whose body is in its entry's
// file (Bodies). fasthttp writes a body stream of known length with
// io.CopyBuffer, which hands the copy to the stream's WriteTo: there the
// headers fasthttp has buffered are flushed and the body leaves in one
// sendfile(2) on the connection's own descriptor, two system calls in
// all when the socket has room. The offset is the response's own and the
// file's position never moves, so responses share the entry's descriptor
// rather than each opening (and closing) one.
type fileBody struct {
	e    *Entry
	conn *net.TCPConn
	// wd, when set, is the write deadline of conn (a lazyConn's).
	wd  *lazyDeadline
	off int64 // the bytes of the body sent or read so far
}

// WriteTo sends the rest of the body to w. fasthttp's server writes a
// response through a bufio.Writer on the connection the handler saw, the
// only *bufio.Writer a body stream of ours is written to (fasthttp's
// Body and BodyWriteTo copy into byte buffers): the body goes straight to
// that connection once the buffer is flushed. Any other writer gets the
// bytes from memory.
func (b *fileBody) WriteTo(w io.Writer) (int64, error) {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		n, err := w.Write(b.e.body[b.off:])
		b.off += int64(n)
		return int64(n), err
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("response headers: %w", err)
	}
	rc, err := b.conn.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("response body: %w", err)
	}
	start, size := b.off, int64(len(b.e.body))
	var sendErr error
	// Go's poller calls this again once the socket is writable whenever
	// it returns false, and applies the connection's write deadline.
	send := func(sock uintptr) bool {
		for b.off < size {
			// The kernel advances b.off by what it sent, which may be
			// less than asked when the socket's buffer fills.
			n, err := unix.Sendfile(int(sock), b.e.fd, &b.off, int(size-b.off))
			switch {
			case err == unix.EAGAIN:
				return false
			case err == unix.EINTR:
				// Interrupted before sending anything: again.
			case err != nil:
				sendErr = err
				return true
			case n == 0:
				// The body file is never truncated; stop rather
				// than spin if it ever were.
				sendErr = io.ErrUnexpectedEOF
				return true
			}
		}
		return true
	}
	// A lazyConn's poller may time the write out before the deadline asked
	// for: the body then goes on.
	for {
		err = rc.Write(send)
		if err == nil || b.wd == nil || !b.wd.early(err) {
			break
		}
	}
	// The entry owns the body file: it must not be collected, and its
	// file closed, while the kernel reads from the descriptor.
	runtime.KeepAlive(b.e)
	if err == nil {
		err = sendErr
	}
	if err != nil {
		return b.off - start, fmt.Errorf("response body, sendfile at %d of %d bytes: %w", b.off, size, err)
	}
	return b.off - start, nil
}

// Read copies the body from memory, for a reader that does not use
// WriteTo.
func (b *fileBody) Read(p []byte) (int, error) {
	if b.off >= int64(len(b.e.body)) {
		return 0, io.EOF
	}
	n := copy(p, b.e.body[b.off:])
	b.off += int64(n)
	return n, nil
}
