package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"

	"github.com/valyala/fasthttp"
)

// bareResponse is one response the bare server replays: the bytes and
// headers our replica sent for the same path.
type bareResponse struct {
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
}

// serveBare is the baseline server (the bench binary started again with
// --bare-serve): a plain fasthttp handler writing, per path, the bytes and
// headers captured from our replica. It runs as a process of its own, as
// the replica does, so that neither shares the load generator's process.
func serveBare(file, listen string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var byPath map[string]bareResponse
	if err := json.Unmarshal(raw, &byPath); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	// Where it listens, as the replica logs it (startListening reads it).
	if err := json.NewEncoder(os.Stderr).Encode(map[string]string{"msg": "listening", "addr": ln.Addr().String()}); err != nil {
		return err
	}
	// No default Server or Content-Type header: the captured headers are
	// the whole set, as in our replica's responses. The same write buffer
	// as the replica's (internal/httpapi), so that the column measures the
	// work per response, not a buffer setting either could change.
	srv := &fasthttp.Server{NoDefaultServerHeader: true, NoDefaultContentType: true, WriteBufferSize: 32 << 10, Handler: func(ctx *fasthttp.RequestCtx) {
		gzip := bytes.Contains(ctx.Request.Header.Peek("Accept-Encoding"), []byte("gzip"))
		r, ok := byPath[bareKey(string(ctx.Path()), true)]
		if !ok || !gzip {
			r, ok = byPath[string(ctx.Path())]
		}
		if !ok {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		for k, v := range r.Headers {
			ctx.Response.Header.Set(k, v)
		}
		ctx.Response.SetBodyRaw(r.Body)
	}}
	return srv.Serve(ln)
}
