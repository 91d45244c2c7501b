package follow

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/pkg/model"
)

// upstream is a live API a feed follows (openligadb, football-data-org):
// it chooses each poll's calls by where the matches stand, and makes them
// through a caller, which spends each from the source's budget. What a
// poll brings is written as a fetched file is.
type upstream interface {
	// budget is the budget the feed's calls are spent from.
	budget(fd model.Feed, token string) budgetSpec
	// header is what every call sends (the token).
	header(token string) http.Header
	// poll makes a poll's calls and moves live on; a nil body says the
	// source has nothing new.
	poll(ctx context.Context, c *caller, fd model.Feed, live *Live, now time.Time) (apiDoc, error)
	// needsToken reports whether a feed of it must name a token.
	needsToken() bool
}

// apiDoc is what a poll of a live API brought.
type apiDoc struct {
	body []byte
	// name is the path the importer reads the document under.
	name string
	// kind says how it is written: docWhole, docPart or docCalendar.
	kind docKind
	// calendar: it is not what the feed's schedule is read from (one
	// competition's season of several).
	calendar bool
}

// upstreams are the live APIs, by format.
var upstreams = map[string]upstream{"openligadb": openLigaDB{}, "football-data-org": footballDataOrg{}}

// IsLive reports whether format is a live API's, whose --url is the API's
// base and whose polls follow its matches.
func IsLive(format string) bool { _, ok := upstreams[format]; return ok }

// NeedsToken reports whether a feed of the live format must name a token.
func NeedsToken(format string) bool { up, ok := upstreams[format]; return ok && up.needsToken() }

// soon is how long before a kick-off its feed is polled at the pace of a
// match in play's second.
const soon = 15 * time.Minute

// caller makes one poll's calls.
type caller struct {
	f      *Follower
	fd     model.Feed
	spec   budgetSpec
	header http.Header
	// calls counts the calls made; pace is the budget's, as of the last.
	calls int
	pace  time.Duration
}

// deferred is a call not made: the budget is spent (or the source said
// to wait) until then.
type deferred struct{ until time.Time }

func (d *deferred) Error() string {
	return "no call made: the source's budget is spent until " + d.until.UTC().Format(time.RFC3339)
}

// refusal is an answer of the source other than 200, with its own
// message and, for a 429, when calls may come again.
type refusal struct {
	status  int
	message string
	retryAt time.Time
}

func (r *refusal) Error() string {
	s := fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status))
	if r.message != "" {
		s += ": " + r.message
	}
	if !r.retryAt.IsZero() {
		s += " (next call at " + r.retryAt.UTC().Format(time.RFC3339) + ")"
	}
	return s
}

// get spends a call from the budget and makes it.
func (c *caller) get(ctx context.Context, rawURL string) ([]byte, error) {
	now := time.Now()
	sp, err := c.f.cfg.State.spend(ctx, c.spec, c.fd.Name, now)
	if err != nil {
		return nil, err
	}
	if !sp.ok {
		return nil, &deferred{until: sp.until}
	}
	c.calls++
	c.pace = sp.pace
	a, err := c.f.fetch.call(ctx, rawURL, c.header)
	c.f.m.calls.WithLabelValues(c.fd.Name, callLabel(a, err)).Inc()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pathOf(rawURL), err)
	}
	if err := c.correct(ctx, a, time.Now()); err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return nil, refused(a, time.Now())
	}
	return a.Body, nil
}

// correct takes the source's own count of the window, and a 429's wait,
// into the budget.
func (c *caller) correct(ctx context.Context, a answer, now time.Time) error {
	left, reset := -1, time.Duration(0)
	if v, err := strconv.Atoi(a.Header.Get("X-Requests-Available-Minute")); err == nil && v >= 0 {
		left = v
		if r, err := strconv.Atoi(a.Header.Get("X-RequestCounter-Reset")); err == nil && r >= 0 {
			reset = time.Duration(r) * time.Second
		} else {
			left = -1
		}
	}
	var blocked time.Time
	if a.Status == http.StatusTooManyRequests {
		blocked = retryAt(a, now)
	}
	if left < 0 && blocked.IsZero() {
		return nil
	}
	return c.f.cfg.State.correct(ctx, c.spec, left, reset, blocked, now)
}

var waitRE = regexp.MustCompile(`(?i)wait (\d{1,5}) seconds?`)

// retryAt is when a 429 lets calls come again: the wait its message
// names, else X-RequestCounter-Reset, else a minute.
func retryAt(a answer, now time.Time) time.Time {
	if m := waitRE.FindStringSubmatch(message(a.Body)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return now.Add(time.Duration(n) * time.Second)
	}
	if r, err := strconv.Atoi(a.Header.Get("X-RequestCounter-Reset")); err == nil && r >= 0 && r <= 3600 {
		return now.Add(time.Duration(r) * time.Second)
	}
	return now.Add(time.Minute)
}

// refused is the error of an answer other than 200.
func refused(a answer, now time.Time) *refusal {
	r := &refusal{status: a.Status, message: message(a.Body)}
	if a.Status == http.StatusTooManyRequests {
		r.retryAt = retryAt(a, now)
	}
	return r
}

// message is what a source's error body says: its message (or, in older
// shapes, its error), else the start of the body if it is short text.
func message(body []byte) string {
	var e struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		return strings.TrimSpace(cmp.Or(e.Message, e.Error))
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 || strings.ContainsAny(s, "<>") {
		return ""
	}
	return s
}

// callLabel is the label of a call's outcome in fd_feed_upstream_calls_total.
func callLabel(a answer, err error) string {
	switch {
	case err != nil:
		return "failed"
	case a.Status >= 500:
		return "5xx"
	}
	return strconv.Itoa(a.Status)
}

// pathOf is a URL without its query and host, for messages.
func pathOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "the call"
	}
	return u.Path
}

// token reads a feed's token where the feed says it is: it is read at
// every poll, so that a token replaced is used at once.
func (f *Follower) token(fd model.Feed) (string, error) {
	switch {
	case fd.TokenFile != "":
		if len(f.cfg.TokenFiles) == 0 {
			return "", errors.New("token files are read only under the folders given to `ingest follow --token-files DIR`, and this follower has none")
		}
		path, err := underFolders(fd.TokenFile, f.cfg.TokenFiles, "--token-files")
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("token file: %w", unwrapPath(err))
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", fmt.Errorf("token file %s is empty", fd.TokenFile)
		}
		return t, nil
	case fd.TokenEnv != "":
		if !slices.Contains(f.cfg.TokenVars, fd.TokenEnv) {
			return "", fmt.Errorf("token: the environment variable %s is not one given to `ingest follow --token-vars`", fd.TokenEnv)
		}
		t := strings.TrimSpace(f.cfg.Getenv(fd.TokenEnv))
		if t == "" {
			return "", fmt.Errorf("token: the environment variable %s of this follower is not set", fd.TokenEnv)
		}
		return t, nil
	}
	return "", nil
}

// followAPI polls a live API feed: the calls its upstream chooses, each
// spent from the budget; what they bring is written as a document; the
// next poll is set by where the matches stand.
func (f *Follower) followAPI(ctx context.Context, h *held, fd model.Feed, st Status, up upstream) outcome {
	var live Live
	if st.Live != nil {
		live = *st.Live
	}
	token, err := f.token(fd)
	if err != nil {
		return outcome{result: ResultError, err: err, live: &live}
	}
	if token == "" && up.needsToken() {
		return outcome{result: ResultError, err: errors.New("token: the feed names neither a token file nor a variable"), live: &live}
	}
	now := time.Now()
	c := &caller{f: f, fd: fd, spec: up.budget(fd, token), header: up.header(token)}
	next := live
	next.Budget = c.spec.key
	doc, err := up.poll(ctx, c, fd, &next, now)
	if c.pace > 0 {
		live.Pace, next.Pace = c.pace, c.pace
	}
	live.Calls += uint64(c.calls)
	next.Calls = live.Calls
	out := f.written(ctx, h, fd, st, doc, err, now)
	out.live = &live
	if out.accepted || out.result == ResultNotModified {
		out.live = &next
	}
	if out.doc != nil && !doc.calendar {
		applySchedule(out.live, out.doc.Schedule(now), now)
	}
	out.every = pollEvery(fd, *out.live, time.Now(), c.calls)
	return out
}

// written is the outcome of a live API's poll: deferred by the budget,
// failed, nothing new, or its document written.
func (f *Follower) written(ctx context.Context, h *held, fd model.Feed, st Status, doc apiDoc, err error, now time.Time) outcome {
	var d *deferred
	var r *refusal
	switch {
	case errors.As(err, &d):
		return outcome{result: ResultDeferred, retryAt: d.until}
	case errors.As(err, &r):
		return outcome{result: ResultError, err: fmt.Errorf("fetch: %w", err), retryAt: r.retryAt}
	case err != nil:
		return outcome{result: ResultError, err: fmt.Errorf("fetch: %w", err)}
	case doc.body == nil:
		return outcome{result: ResultNotModified}
	}
	out, parsed := f.write(ctx, h, fd, st, fetched{Body: doc.body}, doc.name, doc.kind, now)
	out.doc = parsed
	return out
}

// applySchedule takes what a document says of its matches into a live
// feed's state; a matchday other than the one polled starts its own
// change date afresh.
func applySchedule(l *Live, s importer.Schedule, now time.Time) {
	if s.Matchday != l.Matchday {
		l.LastChange = ""
	}
	l.InPlay, l.NextKickoff, l.Matchday, l.ScheduleAt = s.InPlay, s.NextKickoff, s.Matchday, now
}

// pollEvery is the time until a live feed's next poll: while a match is
// in play (or seasons are being read in turn), the budget's pace (for
// each call a poll makes); before a kick-off, twice that, up to the
// kick-off; otherwise the feed's own interval, shortened so that the
// poll before a kick-off comes soon before it.
func pollEvery(fd model.Feed, live Live, now time.Time, calls int) time.Duration {
	pace := max(live.Pace, minPace) * time.Duration(max(calls, 1))
	until := live.NextKickoff.Sub(now)
	switch {
	case live.InPlay > 0 || live.Cursor > 0 || live.ScheduleAt.Before(live.WholeAt):
		// In play; or a round of seasons under way, or just ended and
		// the matches on or near not read since.
		return pace
	case live.ScheduleAt.IsZero():
		// Nothing read yet (the first polls failed): whether a match is
		// on is unknown, so the next try comes within a minute, not
		// after the hours the feed waits when nothing is on.
		return min(fd.Every(), time.Minute)
	case live.NextKickoff.IsZero():
		return fd.Every()
	case until <= soon:
		return max(min(2*pace, until), pace)
	}
	return max(min(fd.Every(), until-soon), pace)
}
