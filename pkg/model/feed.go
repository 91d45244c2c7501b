package model

import (
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// Feed is a source that `ingest follow` keeps current: a file of one of
// the importer's formats at a URL, fetched on its own schedule, whose
// changes are published through the editor like an editor's. Its runtime
// state (last fetch, validators, errors) is the follower's, kept beside
// the stream (internal/follow).
type Feed struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	URL    string `json:"url"`
	// League and Season override what the format reads from the URL's
	// path (openfootball: 2025-26/en.1.json is PL 2025); zero: read it.
	League LeagueCode `json:"league,omitempty"`
	Season int        `json:"season,omitempty"`
	// EverySeconds is the time between two fetches.
	EverySeconds int `json:"everySeconds"`
	// CreateTeams lets the feed create a team for a name that no team
	// has; otherwise its fixtures are held back and the name reported.
	CreateTeams bool      `json:"createTeams,omitempty"`
	Paused      bool      `json:"paused,omitempty"`
	Removed     bool      `json:"removed,omitempty"`
	Created     time.Time `json:"created"`
}

// Bounds of a feed's schedule: a second lets tests and local folders
// poll fast; a week is the longest any source waits between updates.
const (
	MinFeedEvery = time.Second
	MaxFeedEvery = 7 * 24 * time.Hour
)

// DefaultFeedEvery is the schedule of a feed added without one.
const DefaultFeedEvery = 10 * time.Minute

var formatNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Every is the time between two fetches of the feed.
func (f *Feed) Every() time.Duration { return time.Duration(f.EverySeconds) * time.Second }

// CheckFeedURL accepts an absolute http or https URL with a host and no
// credentials, or a file URL of an absolute local path.
func CheckFeedURL(s string) error {
	u, err := url.Parse(s)
	if err == nil && len(s) <= maxURL && u.Scheme == "file" && (u.Host == "" || u.Host == "localhost") && len(u.Path) > 1 && u.Path[0] == '/' && u.RawQuery == "" && u.Fragment == "" {
		return nil
	}
	if err != nil || len(s) > maxURL || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || u.Fragment != "" {
		return Invalidf("url", s, "must be an absolute http or https URL with a host, no user and no fragment, or a file:///absolute/path")
	}
	return nil
}

// Validate checks a feed.
func (f *Feed) Validate() error {
	if err := f.ValidateDraft(); err != nil {
		return err
	}
	if f.Created.IsZero() {
		return Invalidf("created", "", "must be set")
	}
	return nil
}

// ValidateDraft checks what an editor gives of a new feed, before it gets
// its creation time. Whether the importer reads the format is the
// caller's to check (pkg/model knows no formats).
func (f *Feed) ValidateDraft() error {
	if !clientNameRE.MatchString(f.Name) {
		return Invalidf("name", f.Name, "must be 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit")
	}
	if !formatNameRE.MatchString(f.Format) {
		return Invalidf("format", f.Format, "must be the name of an import format, such as openfootball")
	}
	if err := CheckFeedURL(f.URL); err != nil {
		return err
	}
	if f.League != "" {
		if c, err := ParseLeagueCode(string(f.League)); err != nil || c != f.League {
			return Invalidf("league", string(f.League), "must be 2 to 4 upper-case letters or digits")
		}
	}
	if f.Season != 0 && (f.Season < 1850 || f.Season > 2100) {
		return Invalidf("season", strconv.Itoa(f.Season), "must be a start year from 1850 to 2100")
	}
	if e := f.Every(); e < MinFeedEvery || e > MaxFeedEvery {
		return Invalidf("every", f.Every().String(), "must be from %s to %s", MinFeedEvery, MaxFeedEvery)
	}
	return nil
}
