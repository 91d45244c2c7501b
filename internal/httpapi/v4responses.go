package httpapi

// The envelopes of v4's answers, one a route, named so that a reader finds
// each answer's shape in one place. encoding/json writes the fields in
// their order here, which is upstream's: the order is part of the bytes on
// the wire and of the goldens.

// v4AreasResponse is /v4/areas.
type v4AreasResponse struct {
	Count   int          `json:"count"`
	Filters struct{}     `json:"filters"`
	Areas   []v4AreaItem `json:"areas"`
}

// v4CompetitionsResponse is /v4/competitions.
type v4CompetitionsResponse struct {
	Count        int          `json:"count"`
	Filters      v4Filters    `json:"filters"`
	Competitions []v4CompItem `json:"competitions"`
}

// v4StandingsResponse is /v4/competitions/{id}/standings.
type v4StandingsResponse struct {
	Filters     v4Filters    `json:"filters"`
	Area        v4AreaTiny   `json:"area"`
	Competition v4CompTiny   `json:"competition"`
	Season      v4Season     `json:"season"`
	Standings   []v4Standing `json:"standings"`
}

// v4CompMatchesResponse is /v4/competitions/{id}/matches.
type v4CompMatchesResponse struct {
	Filters     v4Filters   `json:"filters"`
	ResultSet   v4ResultSet `json:"resultSet"`
	Competition v4CompTiny  `json:"competition"`
	Matches     []v4Match   `json:"matches"`
}

// v4CompTeamsResponse is /v4/competitions/{id}/teams.
type v4CompTeamsResponse struct {
	Count       int          `json:"count"`
	Filters     v4Filters    `json:"filters"`
	Competition v4CompTiny   `json:"competition"`
	Season      v4Season     `json:"season"`
	Teams       []v4TeamFull `json:"teams"`
}

// v4MatchesResponse is /v4/matches and /v4/teams/{id}/matches.
type v4MatchesResponse struct {
	Filters   v4Filters   `json:"filters"`
	ResultSet v4ResultSet `json:"resultSet"`
	Matches   []v4Match   `json:"matches"`
}

// v4H2HResponse is /v4/matches/{id}/head2head.
type v4H2HResponse struct {
	Filters    v4H2HFilters    `json:"filters"`
	ResultSet  v4ResultSet     `json:"resultSet"`
	Aggregates v4H2HAggregates `json:"aggregates"`
	Matches    []v4Match       `json:"matches"`
}

// v4TeamsResponse is /v4/teams.
type v4TeamsResponse struct {
	Count   int          `json:"count"`
	Filters v4Filters    `json:"filters"`
	Teams   []v4TeamItem `json:"teams"`
}

// v4ScorersResponse is /v4/competitions/{id}/scorers.
type v4ScorersResponse struct {
	Count       int           `json:"count"`
	Filters     v4Filters     `json:"filters"`
	Competition v4CompTiny    `json:"competition"`
	Season      v4Season      `json:"season"`
	Scorers     []v4ScorerRow `json:"scorers"`
}

// v4PersonMatchesResponse is /v4/persons/{id}/matches.
type v4PersonMatchesResponse struct {
	Filters      v4PersonMatchesFilters `json:"filters"`
	ResultSet    v4ResultSet            `json:"resultSet"`
	Aggregations string                 `json:"aggregations"`
	Person       v4Person               `json:"person"`
	Matches      []v4Match              `json:"matches"`
}

// v4PersonMatchesFilters is a person's matches' echo: limit, offset,
// competitions and permission always, in upstream's order, then the
// filters given.
type v4PersonMatchesFilters struct {
	Limit        int      `json:"limit"`
	Offset       int      `json:"offset"`
	Competitions string   `json:"competitions"`
	Permission   string   `json:"permission"`
	DateFrom     *string  `json:"dateFrom,omitempty"`
	DateTo       *string  `json:"dateTo,omitempty"`
	Status       []string `json:"status,omitempty"`
}
