package model

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
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
	// EverySeconds is the time between two fetches; for a live API
	// (openligadb, football-data-org) the time between two when no match
	// is on or near: while one is, the source's budget sets the pace.
	EverySeconds int `json:"everySeconds"`
	// SourceLeague is the source's own name of the league a live API
	// feed follows (OpenLigaDB's shortcut: bl2); Competitions are those of
	// a football-data.org feed (its codes, which are ours).
	SourceLeague string       `json:"sourceLeague,omitempty"`
	Competitions []LeagueCode `json:"competitions,omitempty"`
	// TokenFile and TokenEnv say where every follower finds the API
	// token: a file's path or an environment variable's name. The token
	// itself is never stored.
	TokenFile string `json:"tokenFile,omitempty"`
	TokenEnv  string `json:"tokenEnv,omitempty"`
	// UpstreamPerMinute and UpstreamPerDay are the calls the source
	// allows (0: the format's own figure).
	UpstreamPerMinute int `json:"upstreamPerMinute,omitempty"`
	UpstreamPerDay    int `json:"upstreamPerDay,omitempty"`
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

var (
	formatNameRE   = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	sourceLeagueRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,31}$`)
	envNameRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

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
	return f.validateUpstream()
}

// validateUpstream checks what a live API feed adds: the source's league
// and competitions, where its token is, and its budget.
func (f *Feed) validateUpstream() error {
	if f.SourceLeague != "" && !sourceLeagueRE.MatchString(f.SourceLeague) {
		return Invalidf("source-league", f.SourceLeague, "must be the source's league shortcut: lower-case letters, digits, -, _ or ., such as bl1")
	}
	for _, c := range f.Competitions {
		if p, err := ParseLeagueCode(string(c)); err != nil || p != c {
			return Invalidf("leagues", string(c), "must be 2 to 4 upper-case letters or digits, such as PL")
		}
	}
	switch {
	case f.TokenFile != "" && f.TokenEnv != "":
		return Invalidf("token-file", f.TokenFile, "give the token's file or its environment variable, not both")
	case f.TokenFile != "" && (len(f.TokenFile) > maxURL || !strings.HasPrefix(f.TokenFile, "/")):
		return Invalidf("token-file", f.TokenFile, "must be an absolute path, the same on every follower's host")
	case f.TokenEnv != "" && !envNameRE.MatchString(f.TokenEnv):
		return Invalidf("token-env", f.TokenEnv, "must be an environment variable's name, such as FOOTBALL_DATA_TOKEN")
	case f.UpstreamPerMinute < 0 || f.UpstreamPerMinute > 10000:
		return Invalidf("upstream-per-minute", strconv.Itoa(f.UpstreamPerMinute), "must be from 1 to 10000 calls")
	case f.UpstreamPerDay < 0 || f.UpstreamPerDay > 10000000:
		return Invalidf("upstream-per-day", strconv.Itoa(f.UpstreamPerDay), "must be from 1 to 10000000 calls")
	}
	return nil
}
