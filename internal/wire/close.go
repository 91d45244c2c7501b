package wire

import "time"

// A connection closed while the peer's bytes wait unread in the socket
// (the requests pipelined after one the server refused and closed on) is
// reset by the kernel, and the reset makes the peer's kernel drop what it
// has received and not yet handed over: the answers the server sent just
// before, the 400 among them. So a connection whose peer has not closed
// its side lingers instead: its side is closed for writing (the peer reads
// everything sent, then the end), and what the peer still sends is read
// and dropped until it closes too, lingerBytes have come, or lingerTime
// has passed. Only then is the socket closed, and Listener.Admit's hold on
// its address released.

const (
	lingerTime  = 2 * time.Second
	lingerBytes = 1 << 20
)

// Close closes the connection, lingering as above unless the peer has
// closed its side or a read is in progress: then the close is one that
// must end the read (fasthttp's shutdown closing an idle connection from
// another goroutine), and is at once. Only the first Close does anything.
func (c *lazyConn) Close() error {
	if !c.closing.CompareAndSwap(false, true) {
		return nil
	}
	if c.eof.Load() || c.reading.Load() > 0 {
		err := c.tc.Close()
		c.release()
		return err
	}
	go c.linger()
	return nil
}

// linger drains the connection, then closes it: on a goroutine of its own,
// so that the server's worker goes on at once; it ends within lingerTime.
func (c *lazyConn) linger() {
	defer c.release()
	defer c.tc.Close()
	if c.tc.CloseWrite() != nil {
		return
	}
	// Through the lazy deadline, so that a read fasthttp may still have in
	// progress ends by it too.
	if c.rd.set(time.Now().Add(lingerTime)) != nil {
		return
	}
	var buf [4096]byte
	for n := 0; n < lingerBytes; {
		m, err := c.Read(buf[:])
		if err != nil {
			return
		}
		n += m
	}
}

func (c *lazyConn) release() {
	if c.released != nil {
		c.released()
	}
}
