package httpapi

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// filters are the query parameters of every endpoint, parsed and checked in
// this one place. A value that does not match its type is a 400 naming the
// parameter, the value and what is expected; unknown parameters are ignored.
type filters struct {
	season    int    // 0: unset
	matchday  int    // 0: unset
	head2head int    // -1: unset
	venue     string // "", "home", "away"
	leagues   []string
	timeFrame string // as given, e.g. "n7"
	start     time.Time
	end       time.Time
	hasRange  bool
	name      string
	hasName   bool
	// The ids of the event stream's filters.
	competitions, teams, fixtures []int32
}

var (
	timeFrameRE = regexp.MustCompile(`^([pn])([1-9][0-9]?)$`)
	leaguesRE   = regexp.MustCompile(`^[A-Za-z0-9]{2,4}(,[A-Za-z0-9]{2,4})*$`)
	seasonRE    = regexp.MustCompile(`^\d{4}$`)
	idsRE       = regexp.MustCompile(`^[1-9]\d{0,8}(,[1-9]\d{0,8}){0,99}$`)
)

// digits reports whether s is one or more ASCII digits (what `^\d+$`
// matches), without a regexp: every request with an id asks.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// allowed lists, per endpoint, the filters it reads; others are ignored.
type allowed uint16

const (
	fSeason allowed = 1 << iota
	fMatchday
	fHead2Head
	fVenue
	fLeague
	fTimeFrame
	fName
	fCompetitionIDs
	fTeamIDs
	fFixtureIDs
)

// parseFilters reads the filters an endpoint accepts. today is the UTC date
// time frames count from.
func parseFilters(c *fiber.Ctx, accept allowed, today time.Time) (filters, error) {
	f := filters{head2head: -1}
	q := func(name string) (string, bool) {
		v := c.Context().QueryArgs().Peek(name)
		return string(v), v != nil
	}
	if accept&fSeason != 0 {
		if v, ok := q("season"); ok {
			if !seasonRE.MatchString(v) {
				return f, badRequest("season must be a four-digit year such as 2015, got '%s'", v)
			}
			f.season, _ = strconv.Atoi(v)
		}
	}
	if accept&fMatchday != 0 {
		if v, ok := q("matchday"); ok {
			n, err := strconv.Atoi(v)
			if !digits(v) || err != nil || n < 1 || n > 99 {
				return f, badRequest("matchday must be an integer from 1 to 99, got '%s'", v)
			}
			f.matchday = n
		}
	}
	if accept&fHead2Head != 0 {
		if v, ok := q("head2head"); ok {
			n, err := strconv.Atoi(v)
			if !digits(v) || err != nil || n > 1000 {
				return f, badRequest("head2head must be an integer from 0 to 1000 (number of former games), got '%s'", v)
			}
			f.head2head = n
		}
	}
	if accept&fVenue != 0 {
		if v, ok := q("venue"); ok {
			if v != "home" && v != "away" {
				return f, badRequest("venue must be 'home' or 'away', got '%s'", v)
			}
			f.venue = v
		}
	}
	if accept&fLeague != 0 {
		if v, ok := q("league"); ok {
			if !leaguesRE.MatchString(v) {
				return f, badRequest("league must be a comma-separated list of league codes of 2 to 4 letters or digits such as PL,BL1, got '%s'", v)
			}
			f.leagues = strings.Split(strings.ToUpper(v), ",")
		}
	}
	if accept&fTimeFrame != 0 {
		if err := f.parseTimeFrame(q, today); err != nil {
			return f, err
		}
	}
	if accept&fName != 0 {
		f.name, f.hasName = q("name")
	}
	for _, ids := range []struct {
		accept allowed
		name   string
		to     *[]int32
	}{{fCompetitionIDs, "competition", &f.competitions}, {fTeamIDs, "team", &f.teams}, {fFixtureIDs, "fixture", &f.fixtures}} {
		if accept&ids.accept == 0 {
			continue
		}
		if v, ok := q(ids.name); ok {
			if !idsRE.MatchString(v) {
				return f, badRequest("%s must be a comma-separated list of up to 100 ids such as 398,426, got '%s'", ids.name, truncateText(v, 80))
			}
			for _, id := range strings.Split(v, ",") {
				n, _ := strconv.Atoi(id)
				*ids.to = append(*ids.to, int32(n))
			}
		}
	}
	return f, nil
}

func (f *filters) parseTimeFrame(q func(string) (string, bool), today time.Time) error {
	tf, hasTF := q("timeFrame")
	start, hasStart := q("timeFrameStart")
	end, hasEnd := q("timeFrameEnd")
	switch {
	case hasTF && (hasStart || hasEnd):
		return badRequest("timeFrame cannot be combined with timeFrameStart/timeFrameEnd; use one or the other")
	case hasStart != hasEnd:
		return badRequest("timeFrameStart and timeFrameEnd go together; both are dates YYYY-MM-DD")
	case hasStart:
		var err error
		if f.start, err = time.Parse(time.DateOnly, start); err != nil {
			return badRequest("timeFrameStart must be a date YYYY-MM-DD, got '%s'", start)
		}
		if f.end, err = time.Parse(time.DateOnly, end); err != nil {
			return badRequest("timeFrameEnd must be a date YYYY-MM-DD, got '%s'", end)
		}
		if f.end.Before(f.start) {
			return badRequest("timeFrameEnd (%s) must not be before timeFrameStart (%s)", end, start)
		}
		if f.end.Sub(f.start) > 3660*24*time.Hour {
			return badRequest("timeFrameStart to timeFrameEnd spans more than ten years; narrow it")
		}
		f.hasRange = true
	case hasTF:
		m := timeFrameRE.FindStringSubmatch(tf)
		if m == nil {
			return badRequest("timeFrame must be p or n followed by a number of days from 1 to 99, such as p6 or n23, got '%s'", tf)
		}
		n, _ := strconv.Atoi(m[2])
		f.timeFrame = tf
		f.start, f.end = today, today.AddDate(0, 0, n)
		if m[1] == "p" {
			f.start, f.end = today.AddDate(0, 0, -n), today
		}
		f.hasRange = true
	}
	return nil
}
