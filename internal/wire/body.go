package wire

import "github.com/valyala/fasthttp"

// WriteBuffer is the size of fasthttp's write buffer (its
// WriteBufferSize), which SendfileMin depends on. It holds a response's
// headers and a body of up to about 32 KiB (tables, single fixtures, a
// team's season), so that it leaves in one write(2); with fasthttp's 4 KiB
// default an 8 KiB table took two. Like the read buffer it is held by
// each open connection.
const WriteBuffer = 32 << 10

// SetBody makes e's body the body of ctx's response. A TCP connection, a
// lazyConn's included (sendfile honours its write deadline), takes the
// body from the memory file; a lazyConn takes a body from GatherMin with
// its headers in one writev. Over TLS or any other wrapped connection the
// bytes must pass through the wrapper: those get the copy, as smaller
// bodies do. The caller holds e until fasthttp has written the response
// (Held).
func SetBody(ctx *fasthttp.RequestCtx, e *Entry) {
	conn := ctx.Conn()
	if tc, wd := tcpConnOf(conn); tc != nil && e.bodyFile() >= 0 {
		ctx.Response.SetBodyStream(&fileBody{e: e, conn: tc, wd: wd}, len(e.body))
		return
	}
	if lc, ok := conn.(*lazyConn); ok && len(e.body) >= GatherMin {
		ctx.Response.SetBodyStream(lc.gather(e.body), len(e.body))
		return
	}
	ctx.Response.SetBodyRaw(e.body)
}
