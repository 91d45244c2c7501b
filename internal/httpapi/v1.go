package httpapi

import (
	"strings"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// competitionFor loads a competition the caller may see: 404 if it does
// not exist, 403 if it needs a higher tier.
func competitionFor(who *request, id int) (readmodel.CompetitionKey, error) {
	comp, ok := who.snap.CompetitionKey(id)
	if !ok {
		return comp, notFound("competition %d does not exist; list the current ones at /v1/competitions", id)
	}
	if !who.tier.Allows(comp.Tier) {
		return comp, restricted("competition %d is available to %s clients only; send the X-Auth-Token of such a client", id, comp.Tier)
	}
	return comp, nil
}

// competitionRequest is the common start of every /competitions/{id}
// endpoint: the caller, the competition it may see, and the representation
// asked for (compressed only where fixtures allow it).
func competitionRequest(c *fiber.Ctx, fixtures bool) (*request, readmodel.CompetitionKey, representation, error) {
	who := requestOf(c)
	id, err := pathID(c, "competition")
	if err != nil {
		return who, readmodel.CompetitionKey{}, "", err
	}
	comp, err := competitionFor(who, id)
	if err != nil {
		return who, comp, "", err
	}
	rep, err := representationOf(c, who, fixtures)
	return who, comp, rep, err
}

type selfLinks struct {
	Self        href  `json:"self"`
	Competition *href `json:"competition,omitempty"`
	Team        *href `json:"team,omitempty"`
}

func (s *Server) listCompetitions(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		rep, err := representationOf(c, who, false)
		if err != nil {
			return err
		}
		f, err := parseFilters(c, fSeason, who.snap)
		if err != nil {
			return err
		}
		season := f.season
		if season == 0 {
			season = who.snap.CurrentSeason()
		}
		k := s.newKey(c, who, "comps", kind, rep).int(season).str(string(who.tier)).u64(who.snap.SeasonVersion(season))
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			out := []competitionJSON{}
			for _, comp := range who.snap.Competitions(season) {
				if who.tier.Allows(comp.Tier) {
					out = append(out, renderCompetition(comp, rep, l))
				}
			}
			maxAge := maxAgeLive
			if season < who.snap.CurrentSeason() {
				maxAge = maxAgeFinished
			}
			return out, maxAge
		})
	}
}

func (s *Server) showCompetition(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who, comp, rep, err := competitionRequest(c, false)
		if err != nil {
			return err
		}
		id := comp.ID
		k := s.newKey(c, who, "comp", kind, rep).int(id).u64(comp.Version)
		return s.respond(c, k, func() (any, int) {
			whole, _ := who.snap.Competition(id)
			return renderCompetition(whole, rep, s.links(c, kind)), maxAgeOf(who, comp)
		})
	}
}

func (s *Server) competitionTeams(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who, comp, rep, err := competitionRequest(c, false)
		if err != nil {
			return err
		}
		id := comp.ID
		k := s.newKey(c, who, "comp-teams", kind, rep).int(id).u64(comp.Version).u64(who.snap.TeamsVersion())
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			teams, _ := who.snap.CompetitionTeams(id)
			out := struct {
				Links *selfLinks `json:"_links,omitempty"`
				Count int        `json:"count"`
				Teams []teamJSON `json:"teams"`
			}{Count: len(teams), Teams: make([]teamJSON, len(teams))}
			for i, t := range teams {
				out.Teams[i] = renderTeam(t, rep, l)
			}
			if rep == full {
				compLink := l.competition(id)
				out.Links = &selfLinks{Self: href{compLink.Href + "/teams"}, Competition: &compLink}
			}
			return out, maxAgeOf(who, comp)
		})
	}
}

func (s *Server) leagueTable(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who, comp, rep, err := competitionRequest(c, false)
		if err != nil {
			return err
		}
		id := comp.ID
		if comp.Type == model.TypeCup {
			return notFound("competition %d is a cup: it has fixtures (/v1/competitions/%d/fixtures) but no league table", id, id)
		}
		f, err := parseFilters(c, fMatchday, who.snap)
		if err != nil {
			return err
		}
		k := s.newKey(c, who, "table", kind, rep).int(id).int(f.matchday).u64(comp.Version)
		return s.respond(c, k, func() (any, int) {
			t, _ := who.snap.TableView(id, f.matchday)
			return renderTable(comp, t, rep, s.links(c, kind)), maxAgeOf(who, comp)
		})
	}
}

// fixtureList is the shape of every fixture list.
type fixtureList struct {
	Links          *selfLinks `json:"_links,omitempty"`
	Season         *int       `json:"season,omitempty"`
	TimeFrameStart *string    `json:"timeFrameStart,omitempty"`
	TimeFrameEnd   *string    `json:"timeFrameEnd,omitempty"`
	Count          int        `json:"count"`
	Fixtures       []any      `json:"fixtures"`
}

func (s *Server) competitionFixtures(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who, comp, rep, err := competitionRequest(c, true)
		if err != nil {
			return err
		}
		id := comp.ID
		f, err := parseFilters(c, fMatchday|fTimeFrame, who.snap)
		if err != nil {
			return err
		}
		k := s.newKey(c, who, "comp-fixtures", kind, rep).int(id).filters(&f).u64(comp.Version).u64(who.snap.TeamsVersion())
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			fs, _ := who.snap.CompetitionFixtures(id, readmodel.FixtureFilter{From: f.start, To: f.end, Matchday: f.matchday})
			out := fixtureList{Count: len(fs), Fixtures: renderFixtures(fs, rep, l)}
			if f.hasRange {
				out.TimeFrameStart, out.TimeFrameEnd = date(f.start), date(f.end)
			}
			if rep == full {
				compLink := l.competition(id)
				out.Links = &selfLinks{Self: href{compLink.Href + "/fixtures"}, Competition: &compLink}
			}
			return out, maxAgeOf(who, comp)
		})
	}
}

func (s *Server) listFixtures(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		rep, err := representationOf(c, who, true)
		if err != nil {
			return err
		}
		f, err := parseFilters(c, fTimeFrame|fLeague, who.snap)
		if err != nil {
			return err
		}
		if !f.hasRange {
			day := today(who.snap)
			f.start, f.end, f.hasRange = day, day.AddDate(0, 0, 7), true // n7
		}
		// Across every competition an unbounded range could ask for the
		// whole history in one response: hold it to what timeFrame allows.
		if days := int(f.end.Sub(f.start).Hours() / 24); days > maxCalendarDays {
			return badRequest("timeFrameStart to timeFrameEnd spans %d days; /v1/fixtures serves at most %d days at a time", days, maxCalendarDays)
		}
		k := s.newKey(c, who, "fixtures", kind, rep).filters(&f).str(string(who.tier)).u64(who.snap.CalendarVersion())
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			leagues := make([]model.LeagueCode, len(f.leagues))
			for i, code := range f.leagues {
				leagues[i] = model.LeagueCode(code)
			}
			fs := visible(who, who.snap.Fixtures(readmodel.FixtureFilter{From: f.start, To: f.end, Leagues: leagues}))
			out := fixtureList{TimeFrameStart: date(f.start), TimeFrameEnd: date(f.end), Count: len(fs), Fixtures: renderFixtures(fs, rep, l)}
			if rep == full {
				out.Links = &selfLinks{Self: href{l.base + "/fixtures"}}
			}
			return out, maxAgeLive
		})
	}
}

func (s *Server) showFixture(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		id, err := pathID(c, "fixture")
		if err != nil {
			return err
		}
		fk, ok := who.snap.FixtureKey(id)
		if !ok {
			return notFound("fixture %d does not exist", id)
		}
		comp, err := competitionFor(who, fk.Competition)
		if err != nil {
			return err
		}
		rep, err := representationOf(c, who, true)
		if err != nil {
			return err
		}
		f, err := parseFilters(c, fHead2Head, who.snap)
		if err != nil {
			return err
		}
		n := f.head2head
		if n < 0 {
			n = 10
		}
		// The versions of the fixture's competition and of its two teams'
		// meetings key the response, so an edit elsewhere leaves it cached.
		// head2head lists meetings of competitions the caller may see:
		// its tier keys the response too.
		k := s.newKey(c, who, "fixture", kind, rep).int(id).int(n).str(string(who.tier)).u64(comp.Version).u64(fk.PairVersion).u64(who.snap.TeamsVersion())
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			fx, _ := who.snap.Fixture(id)
			h, _ := who.snap.HeadToHead(id, n, who.tier)
			return struct {
				Fixture    any            `json:"fixture"`
				HeadToHead headToHeadJSON `json:"head2head"`
			}{renderFixture(fx, rep, l), renderHeadToHead(h, rep, l)}, maxAgeOf(who, comp)
		})
	}
}

func (s *Server) searchTeams(c *fiber.Ctx) error {
	who := requestOf(c)
	f, err := parseFilters(c, fName, who.snap)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(f.name)
	if q == "" {
		return badRequest("name is required: part of a team name to search for, such as /v1/teams?name=madrid")
	}
	if _, err := representationOf(c, who, false); err != nil {
		return err
	}
	k := s.newKey(c, who, "search", competitionsPath, full).str(strings.ToLower(q)).str(string(who.tier)).u64(who.snap.SearchVersion())
	return s.respond(c, k, func() (any, int) {
		base := s.baseURL(c)
		type hit struct {
			ID                 int               `json:"id"`
			Name               string            `json:"name"`
			CurrentCompetition *int              `json:"currentCompetition"`
			CurrentLeague      *model.LeagueCode `json:"currentLeague"`
		}
		teams := who.snap.SearchTeams(q, who.tier)
		out := struct {
			Links       selfLinks `json:"_links"`
			SearchQuery string    `json:"searchQuery"`
			Count       int       `json:"count"`
			Teams       []hit     `json:"teams"`
		}{Links: selfLinks{Self: href{base + "/v1/teams?name=" + queryEscape(q)}}, SearchQuery: q, Count: len(teams), Teams: make([]hit, len(teams))}
		for i, t := range teams {
			out.Teams[i] = hit{ID: t.ID, Name: t.Name}
			if t.CurrentCompetition != 0 {
				cc, cl := t.CurrentCompetition, t.CurrentLeague
				out.Teams[i].CurrentCompetition, out.Teams[i].CurrentLeague = &cc, &cl
			}
		}
		return out, maxAgeTeams
	})
}

// teamRequest is the common start of every /teams/{id} endpoint: the
// team's id and version (all a cached response needs; the team itself is
// read on a miss) and the representation asked for.
func teamRequest(c *fiber.Ctx, who *request, fixtures bool) (int, uint64, representation, error) {
	id, err := pathID(c, "team")
	if err != nil {
		return 0, 0, "", err
	}
	version, ok := who.snap.TeamVersion(id)
	if !ok {
		return 0, 0, "", notFound("team %d does not exist; find teams with /v1/teams?name=…", id)
	}
	rep, err := representationOf(c, who, fixtures)
	return id, version, rep, err
}

func (s *Server) showTeam(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		id, version, rep, err := teamRequest(c, who, false)
		if err != nil {
			return err
		}
		k := s.newKey(c, who, "team", kind, rep).int(id).u64(version)
		return s.respond(c, k, func() (any, int) {
			t, _ := who.snap.Team(id)
			return renderTeam(t, rep, s.links(c, kind)), maxAgeTeams
		})
	}
}

func (s *Server) teamFixtures(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		id, version, rep, err := teamRequest(c, who, true)
		if err != nil {
			return err
		}
		f, err := parseFilters(c, fSeason|fTimeFrame|fVenue, who.snap)
		if err != nil {
			return err
		}
		if f.season == 0 && !f.hasRange {
			f.season = who.snap.CurrentSeason()
		}
		k := s.newKey(c, who, "team-fixtures", kind, rep).int(id).filters(&f).str(string(who.tier)).u64(version).u64(who.snap.TeamsVersion())
		return s.respond(c, k, func() (any, int) {
			l := s.links(c, kind)
			venue := model.Side("")
			switch f.venue {
			case "home":
				venue = model.Home
			case "away":
				venue = model.Away
			}
			fs, _ := who.snap.TeamFixtures(id, readmodel.FixtureFilter{From: f.start, To: f.end, Season: f.season, Venue: venue})
			fs = visible(who, fs)
			out := fixtureList{Count: len(fs), Fixtures: renderFixtures(fs, rep, l)}
			switch {
			case f.hasRange:
				out.TimeFrameStart, out.TimeFrameEnd = date(f.start), date(f.end)
			case len(fs) > 0:
				out.TimeFrameStart, out.TimeFrameEnd = date(fs[0].Kickoff), date(fs[len(fs)-1].Kickoff)
			}
			if f.season != 0 {
				// A copy: the address of f's own would move f to the heap
				// on every request, hits too.
				season := f.season
				out.Season = &season
			}
			if rep == full {
				teamLink := l.team(id)
				out.Links = &selfLinks{Self: href{teamLink.Href + "/fixtures"}, Team: &teamLink}
			}
			return out, maxAgeLive
		})
	}
}

func (s *Server) teamPlayers(kind linkKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		who := requestOf(c)
		id, _, rep, err := teamRequest(c, who, false)
		if err != nil {
			return err
		}
		k := s.newKey(c, who, "players", kind, rep).int(id).u64(who.snap.SquadVersion(id))
		return s.respond(c, k, func() (any, int) {
			sq, _ := who.snap.Squad(id)
			l := s.links(c, kind)
			out := struct {
				Links   *selfLinks   `json:"_links,omitempty"`
				Count   int          `json:"count"`
				Players []playerJSON `json:"players"`
			}{Count: len(sq.Players), Players: make([]playerJSON, len(sq.Players))}
			for i, p := range sq.Players {
				out.Players[i] = renderPlayer(p)
			}
			if rep == full {
				teamLink := l.team(id)
				out.Links = &selfLinks{Self: href{teamLink.Href + "/players"}, Team: &teamLink}
			}
			return out, maxAgeTeams
		})
	}
}
