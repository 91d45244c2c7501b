package wire

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Bodies is where the bodies sent with sendfile(2) are kept: unnamed files
// (O_TMPFILE) in a directory, or memory files when there is none. A file
// on a disk's filesystem is in its page cache, which Linux keeps in large
// folios; a memory file is shmem, in 4 KiB pages here (shmem_enabled
// "never"), and the kernel's send path walks a body page by page. At 352
// and 432 KB a response from an ext4 file took 0.91 and 0.92 times the CPU
// of one from a memory file (six alternations each, issue 38). An unnamed
// file has no name to clean up: it is gone with its last descriptor, when
// its entry is collected, and a killed replica leaves nothing behind.
//
// The nil *Bodies keeps every body in memory files.
type Bodies struct {
	dir string
}

// OpenBodies makes dir (owner only) if it is missing and checks that it
// takes an unnamed file, a write to it, and a sendfile(2) from it (which a
// filesystem may refuse); the caller falls back to memory files (nil) on
// an error.
func OpenBodies(dir string) (*Bodies, error) {
	if dir == "" {
		return nil, errors.New("body directory: no path")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("body directory %s: %w", dir, err)
	}
	b := &Bodies{dir: dir}
	probe := []byte("footballd")
	fd, err := b.tmpFile(probe)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	null, err := unix.Open(os.DevNull, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("body directory %s: sendfile probe: %w", dir, err)
	}
	defer unix.Close(null)
	var off int64
	if n, err := unix.Sendfile(null, fd, &off, len(probe)); err != nil || n != len(probe) {
		return nil, fmt.Errorf("body directory %s: sendfile sent %d of %d bytes: %v", dir, n, len(probe), err)
	}
	return b, nil
}

// file returns a descriptor of a new file holding body: an unnamed file in
// the directory, or, when there is none or it refuses (a full disk), a
// memory file.
func (b *Bodies) file(body []byte) (int, error) {
	if b != nil {
		if fd, err := b.tmpFile(body); err == nil {
			return fd, nil
		}
	}
	fd, err := unix.MemfdCreate("footballd-body", unix.MFD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("memory file: %w", err)
	}
	if err := writeAll(fd, body); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("memory file: %w", err)
	}
	return fd, nil
}

// tmpFile writes body to an unnamed file in the directory.
func (b *Bodies) tmpFile(body []byte) (int, error) {
	fd, err := unix.Open(b.dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, fmt.Errorf("body directory %s: unnamed file: %w", b.dir, err)
	}
	if err := writeAll(fd, body); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("body directory %s: %w", b.dir, err)
	}
	return fd, nil
}

// writeAll writes body at the start of the file fd.
func writeAll(fd int, body []byte) error {
	for off := 0; off < len(body); {
		n, err := unix.Pwrite(fd, body[off:], int64(off))
		switch {
		case err == unix.EINTR:
		case err != nil:
			return err
		case n == 0:
			return errors.New("wrote nothing")
		default:
			off += n
		}
	}
	return nil
}
