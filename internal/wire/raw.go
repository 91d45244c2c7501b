package wire

import (
	"io"
	"syscall"
	"unsafe"
)

// A response leaves by writev(2) or sendfile(2) on the
// connection's non-blocking socket, made with RawSyscall rather than
// through Go's syscall entry: each call returns at once, EAGAIN when the
// socket is full (then Go's poller waits for it, as for any socket), and
// never blocks. Go treats every other system call as one that may block:
// its monitor thread (sysmon) takes the processor from a call that has
// run for its 20 µs tick and hands it to another thread, and while it
// does so it keeps polling every 20 µs. On loopback a write does the
// receiving side's TCP work too and often takes longer than that: on two
// cores the monitor's wake-ups and the hand-offs were 15 % of a replica's
// CPU a cached table (perf; 1.8 % with these calls). The price is that
// the goroutine keeps its processor for the call, tens of microseconds,
// which it needs to finish the response anyway.

// writevRaw writes what is left of a and then b (from *done, counted over
// both; either may be empty) on fd in writev(2)s, advancing *done, until
// the socket is full (false: wait and call again) or both are written or
// the write fails (true, err).
func writevRaw(fd uintptr, a, b []byte, done *int) (bool, error) {
	for *done < len(a)+len(b) {
		var iov [2]syscall.Iovec
		n := 0
		if rest := a[min(*done, len(a)):]; len(rest) > 0 {
			iov[n].Base = &rest[0]
			iov[n].SetLen(len(rest))
			n++
		}
		if rest := b[max(*done-len(a), 0):]; len(rest) > 0 {
			iov[n].Base = &rest[0]
			iov[n].SetLen(len(rest))
			n++
		}
		m, _, errno := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(n))
		switch errno {
		case 0:
			*done += int(m)
		case syscall.EAGAIN:
			return false, nil
		case syscall.EINTR:
		default:
			return true, errno
		}
	}
	return true, nil
}

// sendfileRaw sends the bytes of the file in from *off up to size on fd,
// advancing *off, as writevRaw writes.
func sendfileRaw(fd uintptr, in int, off *int64, size int64) (bool, error) {
	for *off < size {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDFILE, fd, uintptr(in), uintptr(unsafe.Pointer(off)), uintptr(size-*off), 0, 0)
		switch {
		case errno == syscall.EAGAIN:
			return false, nil
		case errno == syscall.EINTR:
		case errno != 0:
			return true, errno
		case n == 0:
			// The body file is never truncated; stop rather than spin
			// if it ever were.
			return true, io.ErrUnexpectedEOF
		}
	}
	return true, nil
}
