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
// lazyConn's included (sendfile honours its write deadline), takes a large
// body from its file in b; anything else goes as SetBytes sends it. The
// caller holds e until fasthttp has written the response (Held).
func SetBody(ctx *fasthttp.RequestCtx, e *Entry, b *Bodies) {
	if tc, wd := tcpConnOf(ctx.Conn()); tc != nil && e.bodyFile(b) >= 0 {
		ctx.Response.SetBodyStream(&fileBody{e: e, conn: tc, wd: wd}, len(e.body))
		return
	}
	SetBytes(ctx, e.body)
}

// SetBytes makes b, which nothing changes until the response is written
// (an entry's body or gzip form), the body of ctx's response: on a
// lazyConn a body from GatherMin leaves with its headers in one writev,
// whatever its size; over TLS or any other wrapped connection, and below
// GatherMin, it is copied behind the headers. An entry's gzip form has no
// file and takes this path: before, it was always copied, and a
// 30.7 KB gzipped season cost 1.12 to 1.42 times nginx's CPU a request
// (four full bench runs), 1.15 to 1.35 since (three runs; issue 28).
func SetBytes(ctx *fasthttp.RequestCtx, b []byte) {
	if lc, ok := ctx.Conn().(*lazyConn); ok && len(b) >= GatherMin {
		ctx.Response.SetBodyStream(lc.gather(b), len(b))
		return
	}
	ctx.Response.SetBodyRaw(b)
}
