package httpapi

import (
	"cmp"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// Goals, scorers and persons in v4's shapes (spec football-data-v4.md,
// section 6). We keep a person's name as one string: firstName and
// lastName are null rather than a guess at where one ends. Assists have
// no source: null.

// ---- goals ----

type v4Ref struct {
	ID   *int    `json:"id"`
	Name *string `json:"name"`
}

type v4Goal struct {
	// Minute is null for a goal whose minute the source did not give
	// (OpenLigaDB's live goals), as the scorer's id and name are for one
	// whose scorer it did not.
	Minute     *int             `json:"minute"`
	InjuryTime *int             `json:"injuryTime"`
	Type       model.GoalType   `json:"type"`
	Team       v4Ref            `json:"team"`
	Scorer     v4Ref            `json:"scorer"`
	Assist     *struct{}        `json:"assist"`
	Score      v4GoalScoreAfter `json:"score"`
}

// v4GoalScoreAfter is the score right after a goal.
type v4GoalScoreAfter struct {
	Home int `json:"home"`
	Away int `json:"away"`
}

// goalsOf renders a fixture's goals, [] when it has none. A goal's team is
// the side it counts for, an own goal's too (our model's Side), so that
// the running score follows the teams named.
func (x *v4Context) goalsOf(f *readmodel.Fixture, goals []model.Goal) *[]v4Goal {
	out := make([]v4Goal, len(goals))
	var score v4GoalScoreAfter
	for i, g := range goals {
		team := x.team(f.HomeTeamID, f.HomePlaceholder)
		if g.Side == model.Away {
			team = x.team(f.AwayTeamID, f.AwayPlaceholder)
			score.Away++
		} else {
			score.Home++
		}
		out[i] = v4Goal{Type: g.Type, Team: v4Ref{ID: team.ID, Name: team.Name}, Score: score}
		if g.Minute > 0 {
			minute := g.Minute
			out[i].Minute = &minute
		}
		if g.Scorer != "" {
			name := g.Scorer
			out[i].Scorer.Name = &name
		}
		if g.Injury > 0 {
			n := g.Injury
			out[i].InjuryTime = &n
		}
		if g.ScorerID != 0 {
			id := g.ScorerID
			out[i].Scorer.ID = &id
		}
	}
	return &out
}

// unfoldGoals reports whether a match list is asked for its goals
// (X-Unfold-Goals: true), and notes that the answer varies with the
// header. The other X-Unfold-* headers change nothing: we have no line-ups,
// bookings or substitutions, and an empty list would say there were none.
func unfoldGoals(c *fiber.Ctx, who *request) bool {
	who.unfoldable = true
	return strings.EqualFold(c.Get("X-Unfold-Goals"), "true")
}

// unfold adds the goals of fs to their rendered matches when asked.
func (x *v4Context) unfold(ms []v4Match, fs []readmodel.Fixture, goals bool) {
	if !goals {
		return
	}
	for i := range ms {
		ms[i].Goals = x.goalsOf(&fs[i], x.snap.Goals(fs[i].ID))
	}
}

// ---- persons ----

// v4Person is a person embedded in a scorers row or a person's matches.
type v4Person struct {
	ID          *int        `json:"id"`
	Name        string      `json:"name"`
	FirstName   *string     `json:"firstName"`
	LastName    *string     `json:"lastName"`
	DateOfBirth *model.Date `json:"dateOfBirth"`
	Nationality *string     `json:"nationality"`
	Position    *string     `json:"position"`
	ShirtNumber *int        `json:"shirtNumber"`
	LastUpdated *string     `json:"lastUpdated"`
}

// v4PersonFull is /v4/persons/{id}: the person, and his team when he has
// one (absent otherwise, as upstream's).
type v4PersonFull struct {
	v4Person
	CurrentTeam *v4CurrentTeam `json:"currentTeam,omitempty"`
}

// v4CurrentTeam is a person's team: the list form with its area, running
// competitions and the contract, which we do not keep.
type v4CurrentTeam struct {
	Area v4AreaTiny `json:"area"`
	v4Club
	RunningCompetitions []v4CompTiny `json:"runningCompetitions"`
	Contract            v4Contract   `json:"contract"`
}

func v4PersonOf(p readmodel.Person) v4Person {
	out := v4Person{Name: p.Name, DateOfBirth: p.DateOfBirth, Nationality: nonEmpty(p.Nationality), Position: nonEmpty(p.Position), ShirtNumber: p.ShirtNumber}
	if p.ID != 0 {
		id := p.ID
		out.ID = &id
	}
	if !p.LastUpdated.IsZero() {
		at := ts(p.LastUpdated)
		out.LastUpdated = &at
	}
	return out
}

func v4TeamItemOf(t readmodel.Team) v4TeamItem {
	return v4TeamItem{v4Club: v4ClubOf(t)}
}

// v4PersonRequest reads a /v4/persons/{id} path: 404 in upstream's
// words for a person we do not know.
func v4PersonRequest(c *fiber.Ctx, who *request) (readmodel.Person, error) {
	id, err := pathID(c, "person")
	if err != nil {
		return readmodel.Person{}, err
	}
	p, ok := who.snap.Person(id)
	if !ok {
		return p, notFound("person %d does not exist; persons are the squads' players and the scorers", id)
	}
	return p, nil
}

// personKey keys every answer about a person: persons, squads and goals
// (PersonsVersion), his team and its competitions (CalendarVersion,
// TeamsVersion), the leagues' names.
func personKey(k cacheKey, who *request, id int) cacheKey {
	return k.int(id).str(string(who.tier)).u64(who.snap.PersonsVersion()).u64(who.snap.CalendarVersion()).u64(who.snap.TeamsVersion()).
		u64(who.snap.LeaguesVersion())
}

func (s *Server) v4Person(c *fiber.Ctx) error {
	who := requestOf(c)
	p, err := v4PersonRequest(c, who)
	if err != nil {
		return err
	}
	k := personKey(s.newKey(c, who, "v4-person", competitionsPath, full), who, p.ID)
	return s.respond(c, k, func() (any, int) {
		out := v4PersonFull{v4Person: v4PersonOf(p)}
		if t, ok := who.snap.Team(p.TeamID); ok {
			x := newV4Context(who.snap)
			ct := &v4CurrentTeam{v4Club: v4ClubOf(t)}
			ct.Area, ct.RunningCompetitions = x.teamPlace(t, who.tier)
			out.CurrentTeam = ct
		}
		return out, maxAgeTeams
	})
}

// personMatchesLimit is upstream's default limit of a person's matches.
const personMatchesLimit = 15

// v4Aggregations stands where upstream's free plan puts its notice: the
// figures need line-ups and minutes, which we do not have.
const v4Aggregations = "Not available: this server has no line-ups or minutes played to count."

// v4PersonMatches lists the matches a person played as far as we know it:
// those he scored in (own goals included), and his team's finished
// matches of its running competitions; newest first, as upstream's.
func (s *Server) v4PersonMatches(c *fiber.Ctx) error {
	who := requestOf(c)
	p, err := v4PersonRequest(c, who)
	if err != nil {
		return err
	}
	f, err := parseFilters(c, fDates|fStatus|fLimit|fCompetitions, who.snap)
	if err != nil {
		return err
	}
	if f.limit == 0 {
		f.limit = personMatchesLimit
	}
	f.offset = max(f.offset, 0)
	goals := unfoldGoals(c, who)
	k := personKey(s.newKey(c, who, "v4-person-matches", competitionsPath, full), who, p.ID).v4(&f).int(b2i(goals))
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		fs, running := personFixtures(x, p, who.tier)
		if f.codes != nil {
			leagues := v4Leagues(who.snap, &f)
			fs = slices.DeleteFunc(fs, func(fx readmodel.Fixture) bool {
				return !slices.Contains(leagues, x.comp(fx.CompetitionID).league.Code)
			})
		}
		fs = page(x.keep(visible(who, fs), &f), &f)
		codes := strings.Join(f.codes, ",")
		if f.codes == nil {
			list := make([]string, len(running))
			for i, c := range running {
				list[i] = string(c.League)
			}
			codes = strings.Join(list, ",")
		}
		rs := x.resultSetOf(fs, true, 0)
		// Newest first: the first day is the last match's; upstream counts
		// no played matches here.
		rs.First, rs.Last, rs.Played = rs.Last, rs.First, nil
		out := v4PersonMatchesResponse{ResultSet: rs, Aggregations: v4Aggregations, Person: v4PersonOf(p), Matches: make([]v4Match, len(fs))}
		out.Filters.Limit, out.Filters.Offset, out.Filters.Competitions, out.Filters.Permission = f.limit, f.offset, codes, v4Plan(who.tier)
		if f.hasDates {
			out.Filters.DateFrom, out.Filters.DateTo = date(f.from), date(f.to)
		}
		out.Filters.Status = f.statuses
		for i := range fs {
			out.Matches[i] = x.match(&fs[i], false)
		}
		x.unfold(out.Matches, fs, goals)
		return out, maxAgeLive
	})
}

// personFixtures is the matches of a person, newest first, and his team's
// running competitions: the fixtures he scored in, and, when he has a team
// (a squad's or his person event's), its finished fixtures of those
// competitions. A squad has no season, so his team's earlier seasons are
// not taken to be his.
func personFixtures(x *v4Context, p readmodel.Person, tier model.Tier) ([]readmodel.Fixture, []readmodel.Competition) {
	fs := x.snap.PersonFixtures(p.ID)
	t, ok := x.snap.Team(p.TeamID)
	if !ok {
		return fs, nil
	}
	running := x.running(t, tier)
	if len(running) == 0 {
		return fs, nil
	}
	leagues := make([]model.LeagueCode, len(running))
	for i, c := range running {
		leagues[i] = c.League
	}
	team, _ := x.snap.TeamFixtures(t.ID, readmodel.FixtureFilter{Season: running[0].Year, Leagues: leagues})
	for _, fx := range team {
		if fx.Status.HasResult() && !slices.ContainsFunc(fs, func(g readmodel.Fixture) bool { return g.ID == fx.ID }) {
			fs = append(fs, fx)
		}
	}
	slices.SortFunc(fs, func(a, b readmodel.Fixture) int { return cmp.Or(b.Kickoff.Compare(a.Kickoff), cmp.Compare(b.ID, a.ID)) })
	return fs, running
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---- scorers ----

// scorersLimit is upstream's default number of scorers.
const scorersLimit = 10

type v4ScorerRow struct {
	Player    v4Person   `json:"player"`
	Team      v4TeamItem `json:"team"`
	Goals     int        `json:"goals"`
	Assists   *int       `json:"assists"`
	Penalties *int       `json:"penalties"`
}

// v4ScorersOf renders a competition's scorers: the read model's order
// (goals, then name), penalties null when none, as upstream's rows have
// them.
func v4ScorersOf(snap readmodel.Snapshot, list []readmodel.Scorer) []v4ScorerRow {
	out := make([]v4ScorerRow, len(list))
	for i, sc := range list {
		p := readmodel.Person{Person: model.Person{ID: sc.PersonID, Name: sc.Name}}
		if sc.PersonID != 0 {
			if known, ok := snap.Person(sc.PersonID); ok {
				p = known
			}
		}
		row := v4ScorerRow{Player: v4PersonOf(p), Team: v4TeamItem{v4Club: v4Club{ID: sc.TeamID}}, Goals: sc.Goals}
		if t, ok := snap.Team(sc.TeamID); ok {
			row.Team = v4TeamItemOf(t)
		}
		if sc.Penalties > 0 {
			n := sc.Penalties
			row.Penalties = &n
		}
		out[i] = row
	}
	return out
}

func (s *Server) v4Scorers(c *fiber.Ctx) error {
	who := requestOf(c)
	_, key, f, err := v4SeasonRequest(c, who, fLimit)
	if err != nil {
		return err
	}
	if f.limit == 0 {
		f.limit = scorersLimit
	}
	k := s.newKey(c, who, "v4-scorers", competitionsPath, full).int(key.ID).v4(&f).u64(key.Version).u64(who.snap.PersonsVersion()).
		u64(who.snap.TeamsVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		ci := x.comp(key.ID)
		list, _ := who.snap.Scorers(key.ID, f.limit)
		out := v4ScorersResponse{Count: len(list), Filters: v4Filters{Season: seasonEcho(&f), Limit: &f.limit}, Competition: ci.tiny, Season: ci.season,
			Scorers: v4ScorersOf(who.snap, list)}
		return out, maxAgeOf(who, key)
	})
}
