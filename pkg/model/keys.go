package model

import "fmt"

// Natural keys are claimed with compare-and-set, so that any number of
// concurrent importers and editors end with each competition and each
// imported fixture exactly once, as TeamName does for team names.

// CompetitionKey claims a league's season for one competition.
type CompetitionKey struct {
	League        LeagueCode `json:"league"`
	Year          int        `json:"year"`
	CompetitionID int        `json:"competitionId"`
}

// Validate checks a claim.
func (k *CompetitionKey) Validate() error {
	if _, err := ParseLeagueCode(string(k.League)); err != nil {
		return err
	}
	if k.Year < 1850 || k.Year > 2999 {
		return Invalidf("year", fmt.Sprint(k.Year), "must be a four-digit season start year")
	}
	return CheckID("competition", k.CompetitionID)
}

// SourceKeys maps the source of each imported entity of one kind in a
// competition (a fixture's file and match, a deduction's team and reason)
// to the entity's id. Persons are claimed the same way in a team: the key
// of the name a writer first met a person under (NormalizePersonName),
// mapped to the person's id, CompetitionID holding the team's id.
type SourceKeys struct {
	// Kind is the kind of entity: fixture, adjustment or player (a
	// person).
	Kind          string         `json:"kind"`
	CompetitionID int            `json:"competitionId"`
	IDs           map[string]int `json:"ids"`
}

// Validate checks the map.
func (k *SourceKeys) Validate() error {
	if k.Kind != "fixture" && k.Kind != "adjustment" && k.Kind != "player" {
		return Invalidf("kind", k.Kind, "must be fixture, adjustment or player")
	}
	if err := CheckID("competition", k.CompetitionID); err != nil {
		return err
	}
	for source, id := range k.IDs {
		if err := firstError(CheckRequired("source", source, MaxSource), CheckID(k.Kind, id)); err != nil {
			return err
		}
	}
	return nil
}
