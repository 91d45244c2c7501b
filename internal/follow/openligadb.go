package follow

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// openLigaDB is api.openligadb.de (../shared/spec/openligadb/FORMAT.md):
// no token, 5,000 calls a day per address (its maintainer's figure; the
// "last changed" calls are counted too, to be safe). A feed follows one
// league's season: the whole season every interval of the feed while no
// match is in play (the season call has been seen serving stale data, so
// it never overwrites a match in play); while a matchday is on, its
// "last changed" date at the budget's pace, and the matchday itself only
// when that date moved.
type openLigaDB struct{}

// OpenLigaDBPerDay is OpenLigaDB's budget: calls a day per address.
const OpenLigaDBPerDay = 5000

func (openLigaDB) needsToken() bool          { return false }
func (openLigaDB) header(string) http.Header { return nil }
func (openLigaDB) budget(fd model.Feed, _ string) budgetSpec {
	host := fd.URL
	if u, err := url.Parse(fd.URL); err == nil {
		host = u.Host
	}
	spec := budgetSpec{key: budgetKey("openligadb", host), limit: OpenLigaDBPerDay, window: 24 * time.Hour}
	switch {
	case fd.UpstreamPerMinute > 0:
		spec.limit, spec.window = fd.UpstreamPerMinute, time.Minute
	case fd.UpstreamPerDay > 0:
		spec.limit = fd.UpstreamPerDay
	}
	return spec
}

func (openLigaDB) poll(ctx context.Context, c *caller, fd model.Feed, live *Live, now time.Time) (apiDoc, error) {
	base := strings.TrimRight(fd.URL, "/")
	season := fmt.Sprintf("%s/%d", url.PathEscape(fd.SourceLeague), fd.Season)
	if live.Matchday == 0 || (live.InPlay == 0 && now.Sub(live.WholeAt) >= fd.Every()) {
		path := "/getmatchdata/" + season
		body, err := c.get(ctx, base+path)
		if err != nil {
			return apiDoc{}, err
		}
		live.WholeAt, live.LastChange = now, ""
		return apiDoc{body: body, name: path, kind: docWhole}, nil
	}
	matchday := fmt.Sprintf("%s/%d", season, live.Matchday)
	date := ""
	// A kick-off passed since the last read puts its match in play
	// whether or not anyone typed anything yet: the matchday is read
	// without asking whether it changed.
	if live.NextKickoff.IsZero() || now.Before(live.NextKickoff) {
		changed, err := c.get(ctx, base+"/getlastchangedate/"+matchday)
		if err != nil {
			return apiDoc{}, err
		}
		// The date is a JSON string; an empty one says nothing, and
		// the matchday is fetched.
		date = string(bytes.Trim(bytes.TrimSpace(changed), `"`))
		if date != "" && date == live.LastChange {
			return apiDoc{}, nil
		}
	}
	path := "/getmatchdata/" + matchday
	body, err := c.get(ctx, base+path)
	if err != nil {
		return apiDoc{}, err
	}
	live.LastChange = date
	return apiDoc{body: body, name: path, kind: docPart}, nil
}
