package follow

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// footballDataOrg is football-data.org v4 as an upstream
// (../shared/spec/football-data-v4-polling.md): a token's plan allows so
// many calls a minute in a fixed window (10 on the free plan), which its
// answers count down in X-Requests-Available-Minute and
// X-RequestCounter-Reset. A feed follows several competitions with one
// call: the matches of all of them from yesterday to the day after
// tomorrow, at the budget's pace while one is in play, which also sees a
// match finish (a status=LIVE call would not). Their whole seasons are
// read one competition a poll, every calendarEvery or the feed's
// interval if longer, while none is in play.
type footballDataOrg struct{}

// FootballDataOrgPerMinute is the free plan's calls a minute.
const FootballDataOrgPerMinute = 10

// calendarEvery is how often the whole seasons of a football-data.org
// feed are read: a few times a day.
const calendarEvery = 6 * time.Hour

func (footballDataOrg) needsToken() bool { return true }

func (footballDataOrg) header(token string) http.Header {
	return http.Header{"X-Auth-Token": {token}}
}

func (footballDataOrg) budget(fd model.Feed, token string) budgetSpec {
	spec := budgetSpec{key: budgetKey("football-data-org", token), limit: FootballDataOrgPerMinute, window: time.Minute}
	switch {
	case fd.UpstreamPerMinute > 0:
		spec.limit = fd.UpstreamPerMinute
	case fd.UpstreamPerDay > 0:
		spec.limit, spec.window = fd.UpstreamPerDay, 24*time.Hour
	}
	return spec
}

func (footballDataOrg) poll(ctx context.Context, c *caller, fd model.Feed, live *Live, now time.Time) (apiDoc, error) {
	base := strings.TrimRight(fd.URL, "/")
	comps := make([]string, len(fd.Competitions))
	for i, code := range fd.Competitions {
		comps[i] = string(code)
	}
	if len(comps) > 0 && (live.Cursor > 0 || (live.InPlay == 0 && now.Sub(live.WholeAt) >= max(calendarEvery, fd.Every()))) {
		i := live.Cursor % len(comps)
		path := "/competitions/" + url.PathEscape(comps[i]) + "/matches"
		body, err := c.get(ctx, base+path)
		if err != nil {
			return apiDoc{}, err
		}
		if live.Cursor = i + 1; live.Cursor == len(comps) {
			live.Cursor, live.WholeAt = 0, now
		}
		return apiDoc{body: body, name: path, kind: docCalendar, calendar: true}, nil
	}
	day := now.UTC().Truncate(24 * time.Hour)
	q := url.Values{"dateFrom": {day.AddDate(0, 0, -1).Format(time.DateOnly)}, "dateTo": {day.AddDate(0, 0, 2).Format(time.DateOnly)}}
	if len(comps) > 0 {
		q.Set("competitions", strings.Join(comps, ","))
	}
	body, err := c.get(ctx, base+"/matches?"+q.Encode())
	if err != nil {
		return apiDoc{}, err
	}
	return apiDoc{body: body, name: "/matches", kind: docPart}, nil
}
