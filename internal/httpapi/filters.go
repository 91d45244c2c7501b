package httpapi

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// filters are the query parameters of every endpoint, parsed and checked in
// this one place. A value that does not match its type is a 400 naming the
// parameter, the value and what is expected; unknown parameters are ignored
// (but for the event stream's: checkStreamFilters).
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
	// api is the version the event stream's URIs name.
	api push.API

	// v4's filters. dateFrom/dateTo are the days [from, to): v4's end is
	// exclusive. statuses are v4's names as given; limit is 0 and offset
	// -1 when not given; codes are the competitions filter's codes or ids,
	// upper case. date is the date filter as given, its day in from and to;
	// ids the match ids, stage and group the names as v4 spells them.
	from, to      time.Time
	hasDates      bool
	date          string
	statuses      []string
	limit, offset int
	codes         []string
	ids           []int32
	stage, group  string
}

var (
	timeFrameRE = regexp.MustCompile(`^([pn])([1-9][0-9]?)$`)
	leaguesRE   = regexp.MustCompile(`^[A-Za-z0-9]{2,4}(,[A-Za-z0-9]{2,4})*$`)
	idsRE       = regexp.MustCompile(`^[1-9]\d{0,8}(,[1-9]\d{0,8}){0,99}$`)
	// competitionsRE is v4's competitions: codes, or v4 ids, which for a
	// league an editor added run to 7 digits (v4CompetitionID).
	competitionsRE = regexp.MustCompile(`^([A-Za-z0-9]{2,4}|\d{5,7})(,([A-Za-z0-9]{2,4}|\d{5,7}))*$`)
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

// number reads v, one or more ASCII digits, as a number of at most most
// (leading zeros allowed, as strconv.Atoi allows them).
func number(v []byte, most int) (int, bool) {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		// Past most it only has to stay past it, not overflow.
		if n <= most {
			n = n*10 + int(c-'0')
		}
	}
	return n, len(v) > 0 && n <= most
}

// allowed lists, per endpoint, the filters it reads; others are ignored.
type allowed uint32

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
	fDates
	fStatus
	fLimit
	fCompetitions
	fIDs
	fDate
	fStage
	fGroup
	// fVenueV4 is v4's venue, HOME or AWAY, into the same field as v1's.
	fVenueV4
	fAPI
)

// v4Statuses are the match statuses of v4, and LIVE, which asks for the
// two statuses of a match being played.
var v4Statuses = []string{"SCHEDULED", "TIMED", "IN_PLAY", "PAUSED", "EXTRA_TIME", "PENALTY_SHOOTOUT",
	"FINISHED", "SUSPENDED", "POSTPONED", "CANCELLED", "AWARDED", "LIVE"}

// v4StageList is the stages a stage filter may name, for its error.
var v4StageList = func() string {
	names := make([]string, len(model.RoundStages))
	for i, s := range model.RoundStages {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}()

var groupRE = regexp.MustCompile(`^GROUP_[A-L]$`)

// maxPage bounds v4's limit and offset, as upstream's lookup table does.
const maxPage = 500

// parseFilters reads the filters an endpoint accepts. A time frame counts
// from the UTC date of snap's clock, worked out only when one is asked for.
// Each step reads one filter or one group of them, and only if accept
// names it; the steps run in this order, so that of several bad filters
// the same one is reported first.
func parseFilters(c *fiber.Ctx, accept allowed, snap readmodel.Snapshot) (filters, error) {
	// Without a query every step of parseQuery leaves the filters unset
	// (TestFiltersWithoutQuery): the many requests without one (a cached
	// table, a fixture) skip its dozen lookups, a sixth of a cached
	// table's handler.
	if c.Context().QueryArgs().Len() == 0 {
		return unsetFilters, nil
	}
	return parseQuery(c, accept, snap)
}

// unsetFilters are the filters of a request that gives none.
var unsetFilters = filters{head2head: -1, offset: -1}

// parseQuery is parseFilters' reading of the query.
func parseQuery(c *fiber.Ctx, accept allowed, snap readmodel.Snapshot) (filters, error) {
	f := unsetFilters
	// The numbers and the venue are read from the query's bytes: a cached
	// response with such filters allocates nothing. What is kept as text
	// is copied.
	raw := func(name string) ([]byte, bool) {
		v := c.Context().QueryArgs().Peek(name)
		return v, v != nil
	}
	q := func(name string) (string, bool) {
		v, ok := raw(name)
		return string(v), ok
	}
	if err := f.parseNumbers(raw, accept); err != nil {
		return f, err
	}
	if err := f.parseVenue(raw, accept); err != nil {
		return f, err
	}
	if err := f.parseLeague(q, accept); err != nil {
		return f, err
	}
	if err := f.parseTimeFrame(q, accept, snap); err != nil {
		return f, err
	}
	if accept&fName != 0 {
		f.name, f.hasName = q("name")
	}
	if err := f.parseDates(q, accept); err != nil {
		return f, err
	}
	if err := f.parseDate(q, accept, snap); err != nil {
		return f, err
	}
	if err := f.parseMatchFilters(q, accept); err != nil {
		return f, err
	}
	if err := f.parsePage(raw, accept); err != nil {
		return f, err
	}
	if err := f.parseCompetitions(q, accept); err != nil {
		return f, err
	}
	if err := f.parseVersion(q, accept); err != nil {
		return f, err
	}
	if err := f.parseStreamIDs(q, accept); err != nil {
		return f, err
	}
	return f, nil
}

// parseNumbers reads v1's season, matchday and head2head.
func (f *filters) parseNumbers(raw func(string) ([]byte, bool), accept allowed) error {
	if accept&fSeason != 0 {
		if v, ok := raw("season"); ok {
			n, ok := number(v, 9999)
			if !ok || len(v) != 4 || n < 1000 {
				return badRequest("season must be a four-digit year such as 2015, got '%s'", v)
			}
			f.season = n
		}
	}
	if accept&fMatchday != 0 {
		if v, ok := raw("matchday"); ok {
			n, ok := number(v, 99)
			if !ok || n < 1 {
				return badRequest("matchday must be an integer from 1 to 99, got '%s'", v)
			}
			f.matchday = n
		}
	}
	if accept&fHead2Head != 0 {
		if v, ok := raw("head2head"); ok {
			n, ok := number(v, 1000)
			if !ok {
				return badRequest("head2head must be an integer from 0 to 1000 (number of former games), got '%s'", v)
			}
			f.head2head = n
		}
	}
	return nil
}

// parseVenue reads the venue, v1's home or away or v4's HOME or AWAY.
func (f *filters) parseVenue(raw func(string) ([]byte, bool), accept allowed) error {
	if accept&fVenue != 0 {
		if v, ok := raw("venue"); ok {
			switch string(v) {
			case "home":
				f.venue = "home"
			case "away":
				f.venue = "away"
			default:
				return badRequest("venue must be 'home' or 'away', got '%s'", v)
			}
		}
	}
	if accept&fVenueV4 != 0 {
		if v, ok := raw("venue"); ok {
			switch {
			case bytes.EqualFold(v, []byte("HOME")):
				f.venue = "home"
			case bytes.EqualFold(v, []byte("AWAY")):
				f.venue = "away"
			default:
				return badRequest("venue must be HOME or AWAY, got '%s'", truncateText(string(v), 40))
			}
		}
	}
	return nil
}

// parseLeague reads v1's league codes.
func (f *filters) parseLeague(q func(string) (string, bool), accept allowed) error {
	if accept&fLeague == 0 {
		return nil
	}
	if v, ok := q("league"); ok {
		if !leaguesRE.MatchString(v) {
			return badRequest("league must be a comma-separated list of league codes of 2 to 4 letters or digits such as PL,BL1, got '%s'", v)
		}
		f.leagues = strings.Split(strings.ToUpper(v), ",")
	}
	return nil
}

// parseMatchFilters reads v4's filters of matches: ids, stage, group and
// status.
func (f *filters) parseMatchFilters(q func(string) (string, bool), accept allowed) error {
	if accept&fIDs != 0 {
		if v, ok := q("ids"); ok {
			list, err := parseIDs("ids", v)
			if err != nil {
				return err
			}
			f.ids = list
		}
	}
	if accept&fStage != 0 {
		if v, ok := q("stage"); ok {
			if f.stage = strings.ToUpper(v); !slices.Contains(model.RoundStages, model.RoundStage(f.stage)) {
				return badRequest("stage must be one of %s, got '%s'", v4StageList, truncateText(v, 40))
			}
		}
	}
	if accept&fGroup != 0 {
		if v, ok := q("group"); ok {
			if f.group = strings.ToUpper(v); !groupRE.MatchString(f.group) {
				return badRequest("group must be one of GROUP_A to GROUP_L, got '%s'", truncateText(v, 40))
			}
		}
	}
	if accept&fStatus != 0 {
		if v, ok := q("status"); ok {
			for _, st := range strings.Split(v, ",") {
				st = strings.ToUpper(strings.TrimSpace(st))
				if !slices.Contains(v4Statuses, st) {
					return badRequest("status must be a comma-separated list of %s, got '%s'", strings.Join(v4Statuses, ", "), truncateText(v, 80))
				}
				f.statuses = append(f.statuses, st)
			}
		}
	}
	return nil
}

// parsePage reads v4's limit and offset.
func (f *filters) parsePage(raw func(string) ([]byte, bool), accept allowed) error {
	if accept&fLimit == 0 {
		return nil
	}
	for _, p := range [...]struct {
		name  string
		least int
	}{{"limit", 1}, {"offset", 0}} {
		v, ok := raw(p.name)
		if !ok {
			continue
		}
		n, ok := number(v, maxPage)
		if !ok || n < p.least {
			return badRequest("%s must be an integer from %d to %d, got '%s'", p.name, p.least, maxPage, v)
		}
		if p.name == "limit" {
			f.limit = n
		} else {
			f.offset = n
		}
	}
	return nil
}

// parseCompetitions reads v4's competitions, codes or ids.
func (f *filters) parseCompetitions(q func(string) (string, bool), accept allowed) error {
	if accept&fCompetitions == 0 {
		return nil
	}
	if v, ok := q("competitions"); ok {
		if !competitionsRE.MatchString(v) {
			return badRequest("competitions must be a comma-separated list of competition codes or ids such as PL,BL1 or 2021, got '%s'", truncateText(v, 80))
		}
		f.codes = strings.Split(strings.ToUpper(v), ",")
	}
	return nil
}

// parseVersion reads the API the event stream's URIs name.
func (f *filters) parseVersion(q func(string) (string, bool), accept allowed) error {
	if accept&fAPI == 0 {
		return nil
	}
	if v, ok := q("version"); ok {
		if f.api, ok = push.ParseAPI(v); !ok {
			return badRequest("version must be %s, the API the events' URIs point into, got '%s'", strings.Join(push.APIs[:], " or "), truncateText(v, 40))
		}
	}
	return nil
}

// parseStreamIDs reads the ids of the event stream's filters: competition,
// team and fixture.
func (f *filters) parseStreamIDs(q func(string) (string, bool), accept allowed) error {
	for _, ids := range [...]struct {
		accept allowed
		name   string
	}{{fCompetitionIDs, "competition"}, {fTeamIDs, "team"}, {fFixtureIDs, "fixture"}} {
		if accept&ids.accept == 0 {
			continue
		}
		if v, ok := q(ids.name); ok {
			list, err := parseIDs(ids.name, v)
			if err != nil {
				return err
			}
			switch ids.accept {
			case fCompetitionIDs:
				f.competitions = list
			case fTeamIDs:
				f.teams = list
			default:
				f.fixtures = list
			}
		}
	}
	return nil
}

// parseIDs reads the list of ids of the filter name. Its own function, not
// a pointer into f: that would move every request's filters to the heap.
func parseIDs(name, v string) ([]int32, error) {
	if !idsRE.MatchString(v) {
		return nil, badRequest("%s must be a comma-separated list of up to 100 ids such as 398,426, got '%s'", name, truncateText(v, 80))
	}
	var ids []int32
	for _, id := range strings.Split(v, ",") {
		n, _ := strconv.Atoi(id)
		ids = append(ids, int32(n))
	}
	return ids, nil
}

// parseTimeFrame reads v1's time frame: timeFrame, days before or after
// today, or the dates timeFrameStart and timeFrameEnd.
func (f *filters) parseTimeFrame(q func(string) (string, bool), accept allowed, snap readmodel.Snapshot) error {
	if accept&fTimeFrame == 0 {
		return nil
	}
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
		today := today(snap)
		f.start, f.end = today, today.AddDate(0, 0, n)
		if m[1] == "p" {
			f.start, f.end = today.AddDate(0, 0, -n), today
		}
		f.hasRange = true
	}
	return nil
}

// dayNames are the days the date filter names, from today.
var dayNames = map[string]int{"YESTERDAY": -1, "TODAY": 0, "TOMORROW": 1}

// parseDate reads v4's date, one day: a date, or YESTERDAY, TODAY or
// TOMORROW from the UTC date of snap's clock. It is the range [day, day+1)
// and so cannot go with dateFrom and dateTo.
func (f *filters) parseDate(q func(string) (string, bool), accept allowed, snap readmodel.Snapshot) error {
	if accept&fDate == 0 {
		return nil
	}
	v, ok := q("date")
	if !ok {
		return nil
	}
	if f.hasDates {
		return badRequest("date cannot be combined with dateFrom/dateTo; use one or the other")
	}
	var day time.Time
	switch shift, named := dayNames[strings.ToUpper(v)]; {
	case named:
		day = today(snap).AddDate(0, 0, shift)
	default:
		var err error
		if day, err = time.Parse(time.DateOnly, v); err != nil {
			return badRequest("date must be a date YYYY-MM-DD, YESTERDAY, TODAY or TOMORROW, got '%s'", truncateText(v, 40))
		}
	}
	f.date, f.from, f.to, f.hasDates = strings.ToUpper(v), day, day.AddDate(0, 0, 1), true
	return nil
}

// parseDates reads v4's dateFrom and dateTo, which go together; dateTo is
// the first day after the range.
func (f *filters) parseDates(q func(string) (string, bool), accept allowed) error {
	if accept&fDates == 0 {
		return nil
	}
	from, hasFrom := q("dateFrom")
	to, hasTo := q("dateTo")
	if !hasFrom && !hasTo {
		return nil
	}
	if hasFrom != hasTo {
		return badRequest("dateFrom and dateTo go together; both are dates YYYY-MM-DD, dateTo the first day after the range")
	}
	var err error
	if f.from, err = time.Parse(time.DateOnly, from); err != nil {
		return badRequest("dateFrom must be a date YYYY-MM-DD, got '%s'", truncateText(from, 40))
	}
	if f.to, err = time.Parse(time.DateOnly, to); err != nil {
		return badRequest("dateTo must be a date YYYY-MM-DD, got '%s'", truncateText(to, 40))
	}
	if f.to.Before(f.from) {
		return badRequest("dateTo (%s) must not be before dateFrom (%s)", to, from)
	}
	if f.to.Sub(f.from) > 3660*24*time.Hour {
		return badRequest("dateFrom to dateTo spans more than ten years; narrow it")
	}
	f.hasDates = true
	return nil
}
