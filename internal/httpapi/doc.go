// Package httpapi serves the v1 API over HTTP with Fiber, from the read
// model in memory. routes.go shows the whole surface; every handler asks
// one read-model snapshot, renders through one renderer per representation
// (render.go), caches the bytes under the version of the data they depend
// on (cache.go), and reports errors through one error writer (errors.go),
// a handler's panic among them: it costs its request a 500, never the
// replica.
// Filters are parsed in one place (filters.go), callers are authenticated
// and rate-limited in one middleware (auth.go). How a rendered response
// leaves on the connection (sendfile, writev, lazy deadlines) and who owns
// its buffers and descriptors is package internal/wire's, which states
// the rules.
package httpapi
