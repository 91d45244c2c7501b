package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/internal/netguard"
)

// validators are what a fetch sends to be told "not modified".
type validators struct {
	ETag, LastModified string
}

// fetched is a fetch's outcome: a 304, or a body with its validators.
type fetched struct {
	NotModified bool
	Body        []byte
	validators
}

// fetcher fetches feeds: over HTTP with conditional requests, or from a
// local file.
type fetcher struct {
	client        *http.Client
	timeout       time.Duration
	headerTimeout time.Duration
	maxBody       int64
	minRate       int64
	userAgent     string
	allow         *netguard.Allow
	// files are the folders file URLs may name, absolute, links resolved.
	files []string
}

func newFetcher(cfg Config) *fetcher {
	transport := &http.Transport{
		// No proxy from the environment: it would dial instead of us and
		// so escape the address check.
		Proxy:                 nil,
		DialContext:           cfg.Allow.Dialer(allowFlag, cfg.ConnectTimeout),
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.HeaderTimeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f := &fetcher{timeout: cfg.FetchTimeout, headerTimeout: cfg.HeaderTimeout, maxBody: cfg.MaxBody, minRate: cfg.MinRate, allow: cfg.Allow, files: cfg.Files,
		userAgent: "footballd-follower/" + buildinfo.Read().Version + " (+https://github.com/footdata/footballd)"}
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f
}

// fetch gets rawURL, conditionally on v, within the fetch timeout: the
// connection, the headers and the whole body.
func (f *fetcher) fetch(ctx context.Context, rawURL string, v validators) (fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	u, err := url.Parse(rawURL)
	if err != nil {
		return fetched{}, fmt.Errorf("url %q: %w", rawURL, err)
	}
	if u.Scheme == "file" {
		path, err := f.localFile(u.Path)
		if err != nil {
			return fetched{}, err
		}
		return f.file(path, v)
	}
	if err := f.checkURL(u); err != nil {
		return fetched{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fetched{}, err
	}
	req.Header.Set("User-Agent", f.userAgent)
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fetched{}, f.explain(ctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return fetched{NotModified: true}, nil
	case resp.StatusCode != http.StatusOK:
		// A little of the body is read, so that the connection is
		// reused; the status says what went wrong.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		return fetched{}, fmt.Errorf("HTTP %s", resp.Status)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" {
		return fetched{}, errors.New("the source answered an HTML page (Content-Type text/html), not a data file: is the URL the raw file's?")
	}
	p := pace(resp.Body, f.minRate, cut)
	defer p.stop()
	body, err := readBody(p, resp.ContentLength, f.maxBody)
	if err != nil {
		return fetched{}, f.explain(ctx, err)
	}
	return fetched{Body: body, validators: validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}}, nil
}

// explain says which bound stopped a request, without the request's URL
// (the feed's log line and status name it).
func (f *fetcher) explain(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	var slow *tooSlow
	switch {
	case errors.As(context.Cause(ctx), &slow):
		return slow
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("no whole answer within %s (--fetch-timeout): %w", f.timeout, err)
	case errors.As(err, &ne) && ne.Timeout() && strings.Contains(err.Error(), "headers"):
		return fmt.Errorf("no response headers within %s (--header-timeout)", f.headerTimeout)
	}
	return err
}

// file reads a local file. Its size and modification time, to the
// nanosecond, are its ETag: a file rewritten within the same second is
// still seen as changed, which If-Modified-Since's whole seconds would
// miss.
func (f *fetcher) file(path string, v validators) (fetched, error) {
	fh, err := os.Open(path)
	if err != nil {
		return fetched{}, unwrapPath(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return fetched{}, unwrapPath(err)
	}
	if fi.IsDir() {
		return fetched{}, fmt.Errorf("%s is a folder: a feed follows one file", path)
	}
	etag := fmt.Sprintf(`"%x-%x"`, fi.Size(), fi.ModTime().UnixNano())
	if v.ETag == etag {
		return fetched{NotModified: true}, nil
	}
	if fi.Size() > f.maxBody {
		return fetched{}, fmt.Errorf("the file is larger than the limit of %d bytes (--max-bytes)", f.maxBody)
	}
	body, err := readBody(fh, fi.Size(), f.maxBody)
	if err != nil {
		return fetched{}, unwrapPath(err)
	}
	return fetched{Body: body, validators: validators{ETag: etag, LastModified: fi.ModTime().UTC().Format(http.TimeFormat)}}, nil
}

// unwrapPath drops the path from a file error: the feed's URL names it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", strings.TrimPrefix(pe.Op, "open"), pe.Err)
	}
	return err
}

// answer is an API call's outcome, whatever its status: a live source
// says why it refused (a 429's wait, a bad token) in its body and
// headers.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// call gets rawURL with header added, within the fetch timeout. Only a
// failure to get an answer at all is an error; the caller reads the
// status.
func (f *fetcher) call(ctx context.Context, rawURL string, header http.Header) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return answer{}, err
	}
	if err := f.checkURL(req.URL); err != nil {
		return answer{}, err
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "application/json")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return answer{}, f.explain(ctx, err)
	}
	defer resp.Body.Close()
	p := pace(resp.Body, f.minRate, cut)
	defer p.stop()
	body, err := readBody(p, resp.ContentLength, f.maxBody)
	if err != nil {
		return answer{}, f.explain(ctx, err)
	}
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}
