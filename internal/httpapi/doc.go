// Package httpapi serves the football-data.org v1 and v4 APIs over HTTP
// with Fiber, from the read model in memory. routes.go shows both versions
// on one screen.
//
// Each version has its own room: v1's handlers and shapes are v1.go,
// v1render.go and tablejson.go (the deprecated /alpha serves v1's
// resources under their old paths), v4's are the v4*.go files. They share
// one core: a caller is authenticated and rate-limited in one middleware
// against one budget (auth.go, limits.go), filters are parsed in one place
// (filters.go), every handler asks one read-model snapshot and caches the
// rendered bytes under the versions of the data they depend on
// (respond.go, cache.go), errors leave through one error writer in each
// version's words (errors.go), a handler's panic among them: it costs its
// request a 500, never the replica. One set of metrics counts every route
// (metrics.go).
//
// How a rendered response leaves on the connection (sendfile, writev, lazy
// deadlines) and who owns its buffers and descriptors is package
// internal/wire's, which states the rules.
package httpapi
