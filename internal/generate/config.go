package generate

import (
	"errors"
	"fmt"

	"github.com/footdata/footballd/pkg/events"
)

// Config says which world to generate. Every knob has a default; Validate
// names the knob a bad value came from.
type Config struct {
	// Seed makes the world: the same seed and configuration give the same
	// entities with the same ids on a fresh stream.
	Seed uint64
	// Leagues is the number of leagues: the built-in league codes first,
	// then synthetic ones (G001, G002…) registered as leagues. Default 4,
	// or with Fixtures set, enough leagues to reach it in about 20 seasons.
	Leagues int
	// Seasons is the number of seasons of every league (default 2).
	Seasons int
	// Fixtures, instead of Seasons, generates whole seasons until at least
	// this many fixtures exist.
	Fixtures int
	// FirstYear is the start year of the first season (default 2000).
	FirstYear int
	// MinTeams and MaxTeams bound the size of a league (default 18 and
	// 24); sizes are even, so that every team plays every matchday.
	MinTeams, MaxTeams int
	// TournamentEvery holds a 32-team tournament (eight groups, then
	// knock-out rounds) in the first season and every TournamentEvery-th
	// season after it (default 4; -1 for none).
	TournamentEvery int
	// SquadSize is the number of players of every team (default 25).
	SquadSize int
	// LiveMatches is the number of fixtures of the last season published as
	// a live edit stream: TIMED, IN_PLAY, LiveUpdates running scores, then
	// FINISHED, each a revision of its own (default 0).
	LiveMatches int
	// LiveUpdates is the number of in-play revisions of a live match
	// (default 12).
	LiveUpdates int
	// ExtraEdits is the number of extra revisions every fixture goes
	// through before its final state (changed odds, a corrected score). The
	// final state does not depend on it, so a world generated with edits
	// replays to the same entities as one without (default 0).
	ExtraEdits int
	// Meta marks every message (default editor "generator", source
	// "generate").
	Meta events.Meta
}

// Limits of the knobs.
const (
	minTeamsFloor = 4
	// A league of 40 plays 78 matchdays, within the 99 a competition allows.
	maxTeamsCeiling = 40
	minSquad        = 11
	// Shirt numbers run from 1 to 99 and each player needs his own; 40
	// keeps the numbers realistic.
	maxSquad       = 40
	maxLiveUpdates = 50
	maxExtraEdits  = 100
	maxYear        = 2999
	// seasonsForTarget is the number of seasons a Fixtures target is spread
	// over when Leagues is not given.
	seasonsForTarget = 20
	// typicalSeason is the fixtures of one season of a 21-team league,
	// used only to choose a default number of leagues.
	typicalSeason = 21 * 20
)

// Defaults of Config that `ingest generate --help` states.
const (
	DefaultSeasons         = 2
	DefaultLeagues         = 4
	DefaultFirstYear       = 2000
	DefaultTournamentEvery = 4
)

func (c *Config) setDefaults() {
	if c.Seasons == 0 && c.Fixtures == 0 {
		c.Seasons = DefaultSeasons
	}
	if c.Leagues == 0 {
		c.Leagues = DefaultLeagues
		if c.Fixtures > 0 {
			c.Leagues = min(maxLeagues(), max(1, (c.Fixtures+seasonsForTarget*typicalSeason-1)/(seasonsForTarget*typicalSeason)))
		}
	}
	if c.FirstYear == 0 {
		c.FirstYear = DefaultFirstYear
	}
	if c.MinTeams == 0 {
		c.MinTeams = 18
	}
	if c.MaxTeams == 0 {
		c.MaxTeams = max(24, c.MinTeams)
	}
	if c.TournamentEvery == 0 {
		c.TournamentEvery = DefaultTournamentEvery
	}
	if c.SquadSize == 0 {
		c.SquadSize = 25
	}
	if c.LiveUpdates == 0 {
		c.LiveUpdates = 12
	}
	if c.Meta == (events.Meta{}) {
		c.Meta = events.Meta{Editor: "generator", Source: "generate"}
	}
}

// Validate checks the configuration: the first rule broken, in the order
// below, is the error.
func (c *Config) Validate() error {
	for _, r := range []struct {
		broken bool
		msg    string
	}{
		{c.Leagues < 1 || c.Leagues > maxLeagues(), fmt.Sprintf("leagues %d: must be from 1 to %d", c.Leagues, maxLeagues())},
		{c.Seasons > 0 && c.Fixtures > 0, fmt.Sprintf("seasons %d and fixtures %d: give one or the other", c.Seasons, c.Fixtures)},
		{c.Seasons < 0, fmt.Sprintf("seasons %d: must be at least 1", c.Seasons)},
		{c.Fixtures < 0, fmt.Sprintf("fixtures %d: must be positive", c.Fixtures)},
		{c.FirstYear < 1900 || c.FirstYear > maxYear, fmt.Sprintf("first year %d: must be from 1900 to %d", c.FirstYear, maxYear)},
		{c.Seasons > 0 && c.FirstYear+c.Seasons-1 > maxYear, fmt.Sprintf("seasons %d from %d: the last would start after %d", c.Seasons, c.FirstYear, maxYear)},
		{c.MinTeams < minTeamsFloor || c.MinTeams > maxTeamsCeiling, fmt.Sprintf("min teams %d: must be from %d to %d", c.MinTeams, minTeamsFloor, maxTeamsCeiling)},
		{c.MaxTeams < c.MinTeams || c.MaxTeams > maxTeamsCeiling, fmt.Sprintf("max teams %d: must be from min teams (%d) to %d", c.MaxTeams, c.MinTeams, maxTeamsCeiling)},
		{c.MinTeams == c.MaxTeams && c.MinTeams%2 == 1, fmt.Sprintf("teams %d: league sizes must be even", c.MinTeams)},
		{c.TournamentEvery < -1 || c.TournamentEvery == 0, fmt.Sprintf("tournament every %d: must be a number of seasons, or -1 for none", c.TournamentEvery)},
		{c.SquadSize < minSquad || c.SquadSize > maxSquad, fmt.Sprintf("squad size %d: must be from %d to %d", c.SquadSize, minSquad, maxSquad)},
		{c.LiveMatches < 0, fmt.Sprintf("live matches %d: must not be negative", c.LiveMatches)},
		{c.LiveUpdates < 1 || c.LiveUpdates > maxLiveUpdates, fmt.Sprintf("live updates %d: must be from 1 to %d", c.LiveUpdates, maxLiveUpdates)},
		{c.ExtraEdits < 0 || c.ExtraEdits > maxExtraEdits, fmt.Sprintf("extra edits %d: must be from 0 to %d", c.ExtraEdits, maxExtraEdits)},
	} {
		if r.broken {
			return errors.New(r.msg)
		}
	}
	return nil
}
