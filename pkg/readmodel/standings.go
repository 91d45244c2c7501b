package readmodel

// Table is a competition's league table at one matchday: one standing for
// a league; one per play-off phase once a league's play-offs have begun
// (in the order of its rules, then model.RegularSeason for the teams in
// none); one per group (by group name) for a tournament, then
// model.Thirds if its rules rank the thirds; none for a cup.
type Table struct {
	CompetitionID int
	// Matchday is the matchday shown; 0 when the matchday asked for is
	// beyond the competition's last, which has no standing.
	Matchday  int
	Standings []Standing
	// Version is the competition's version.
	Version uint64
}

// Standing is one ordered table: of a group, a play-off phase or the
// thirds, named by Group ("" for a league's one table).
type Standing struct {
	Group string
	Rows  []TableRow
}

// TableRow is one team's line.
type TableRow struct {
	// Position is the place in the table, 1..N. Rank is shared by teams
	// level on every tie-breaker (1, 2, 2, 4); in a tournament group that
	// has not played yet every rank is 0.
	Position, Rank int
	// Group is the row's group in a tournament (also among the thirds),
	// its phase after a league's split into play-offs, else "".
	Group  string
	TeamID int
	// TeamName, ShortName and CrestURL come from the team ("" if unknown).
	TeamName, ShortName, CrestURL string
	PlayedGames                   int
	// Points include PointsAdjustment, the sum of the team's points
	// adjustments in the competition, applied at every matchday: the
	// stream does not say from when a deduction counts. In a play-off
	// phase they include CarriedPoints, those brought from the regular
	// season (adjustments are part of those); the other figures count the
	// phase's games.
	Points, PointsAdjustment, CarriedPoints int
	Goals, GoalsAgainst                     int
	GoalDifference                          int
	Wins, Draws, Losses                     int
	Home, Away                              Split
}

// Split is the home or the away part of a TableRow.
type Split struct {
	Goals, GoalsAgainst, Wins, Draws, Losses int
}

// Table returns the competition's table at matchday, or at its
// DefaultMatchday when matchday is 0. A table at matchday N counts the
// regular-stage fixtures of matchdays 1..N that have a result.
func (s Snapshot) Table(id, matchday int) (Table, bool) {
	c, ok := s.comp(id)
	if !ok {
		return Table{}, false
	}
	t := Table{CompetitionID: id, Version: c.version}
	if matchday == 0 {
		matchday = s.competition(c).DefaultMatchday
	}
	if matchday < 1 || matchday > c.last {
		return t, true
	}
	t.Matchday = matchday
	if c.tables == nil {
		return t, true
	}
	md := c.tables[matchday-1]
	t.Standings = make([]Standing, len(md.groups))
	for i, g := range md.groups {
		rows := make([]TableRow, len(g.rows))
		for k := range g.rows {
			rows[k] = s.tableRow(&g.rows[k])
			rows[k].Group = g.name
			if g.groups != nil {
				rows[k].Group = g.groups[k]
			}
		}
		t.Standings[i] = Standing{Group: g.name, Rows: rows}
	}
	return t, true
}

func (s Snapshot) tableRow(r *row) TableRow {
	v := TableRow{
		Position: int(r.position), Rank: int(r.rank), TeamID: int(r.team),
		PlayedGames: int(r.played), Points: int(r.points), PointsAdjustment: int(r.adjusting), CarriedPoints: int(r.carried),
		Goals: int(r.goals), GoalsAgainst: int(r.against), GoalDifference: int(r.goals - r.against),
		Wins: int(r.won), Draws: int(r.drawn), Losses: int(r.lost),
		Home: split32(r.home), Away: split32(r.away),
	}
	if t, ok := s.w.teams.get(r.team); ok && t.team != nil {
		v.TeamName = t.team.Name
		if t.team.ShortName != nil {
			v.ShortName = *t.team.ShortName
		}
		if t.team.CrestURL != nil {
			v.CrestURL = *t.team.CrestURL
		}
	}
	return v
}

func split32(s split) Split {
	return Split{Goals: int(s.goals), GoalsAgainst: int(s.against), Wins: int(s.won), Draws: int(s.drawn), Losses: int(s.lost)}
}
