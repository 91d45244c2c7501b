package httpapi

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// v4AreasOf is every area served: upstream's we keep, and one for each
// league's country they lack, by name as upstream lists them.
func v4AreasOf(snap readmodel.Snapshot) []v4Area {
	list := slices.Clone(v4Areas)
	for _, l := range snap.Leagues() {
		if a := v4AreaOf(l.Country); !slices.ContainsFunc(list, func(b v4Area) bool { return b.id == a.id }) {
			list = append(list, a)
		}
	}
	slices.SortFunc(list, func(a, b v4Area) int { return cmp.Compare(a.name, b.name) })
	return list
}

func (s *Server) v4AreaList(c *fiber.Ctx) error {
	who := requestOf(c)
	k := s.newKey(c, who, "v4-areas", competitionsPath, full).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		areas := v4AreasOf(who.snap)
		out := v4AreasResponse{Count: len(areas), Areas: make([]v4AreaItem, len(areas))}
		for i, a := range areas {
			out.Areas[i] = a.item()
		}
		return out, maxAgeStatic
	})
}

func (s *Server) v4AreaOne(c *fiber.Ctx) error {
	who := requestOf(c)
	id, err := pathID(c, "area")
	if err != nil {
		return err
	}
	areas := v4AreasOf(who.snap)
	i := slices.IndexFunc(areas, func(a v4Area) bool { return a.id == id })
	if i < 0 {
		return notFound("area %d does not exist; list the areas at /v4/areas", id)
	}
	k := s.newKey(c, who, "v4-area", competitionsPath, full).int(id).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		var children []v4Area
		for _, a := range areas {
			if a.parent == id {
				children = append(children, a)
			}
		}
		return areas[i].full(children), maxAgeStatic
	})
}

// v4League finds the league a /v4/competitions/{id|code} path names and
// the seasons the caller may see, newest first: 404 when it has none, 403
// when none is open to the caller.
func v4League(c *fiber.Ctx, who *request) (model.League, v4Seasons, error) {
	raw := c.Params("id")
	code := model.LeagueCode(strings.ToUpper(raw))
	if digits(raw) {
		id, _ := strconv.Atoi(raw)
		code = v4LeagueCode(id)
	}
	// A cached answer costs a look-up of the league and of its seasons'
	// keys, not a walk through every league or competition.
	if l, ok := who.snap.League(code); ok {
		if ss := (v4Seasons{who.snap, who.tier, who.snap.LeagueSeasonIDs(l.Code)}); len(ss.ids) > 0 {
			if _, ok := ss.first(0); !ok {
				most, _ := who.snap.CompetitionKey(int(ss.ids[0]))
				return l, v4Seasons{}, restricted("competition %s is available to %s clients only; send the X-Auth-Token of such a client", raw, most.Tier)
			}
			return l, ss, nil
		}
	}
	return model.League{}, v4Seasons{}, notFound("competition %s does not exist; list them at /v4/competitions", raw)
}

// v4Seasons is a league's seasons, newest first, of which a caller sees
// those its tier allows. It reads them in place from the snapshot, so
// that a cached answer allocates nothing (a list of them for every hit was
// the garbage of v4's cached rows).
type v4Seasons struct {
	snap readmodel.Snapshot
	tier model.Tier
	ids  []int32
}

// first is the newest season the caller may see of year, or of any year
// when year is 0. A league has one season a year, newest first, so a
// year's is found by halving: a season asked for by year (as every
// client of an older season asks) was a walk through every newer one, a
// look-up in the read model each.
func (v v4Seasons) first(year int) (readmodel.CompetitionKey, bool) {
	if year != 0 {
		i, found := slices.BinarySearchFunc(v.ids, year, func(id int32, year int) int {
			k, _ := v.snap.CompetitionKey(int(id))
			return cmp.Compare(year, k.Year)
		})
		if found {
			if k, ok := v.snap.CompetitionKey(int(v.ids[i])); ok && v.tier.Allows(k.Tier) {
				return k, true
			}
		}
	}
	// The walk answers what the halving did not: no such season, or one
	// the caller may not see.
	for _, id := range v.ids {
		if k, ok := v.snap.CompetitionKey(int(id)); ok && v.tier.Allows(k.Tier) && (year == 0 || k.Year == year) {
			return k, true
		}
	}
	return readmodel.CompetitionKey{}, false
}

// key adds the seasons the caller may see, and their versions, to k.
func (v v4Seasons) key(k cacheKey) cacheKey {
	for _, id := range v.ids {
		if s, ok := v.snap.CompetitionKey(int(id)); ok && v.tier.Allows(s.Tier) {
			k = k.int(s.ID).u64(s.Version)
		}
	}
	return k
}

// list is the seasons the caller may see, for a rendering.
func (v v4Seasons) list() []readmodel.CompetitionKey {
	var out []readmodel.CompetitionKey
	for _, id := range v.ids {
		if k, ok := v.snap.CompetitionKey(int(id)); ok && v.tier.Allows(k.Tier) {
			out = append(out, k)
		}
	}
	return out
}

// v4SeasonRequest picks the season a request asks for: the season filter's, else
// the newest the caller may see.
func v4SeasonRequest(c *fiber.Ctx, who *request, accept allowed) (model.League, readmodel.CompetitionKey, filters, error) {
	l, seasons, err := v4League(c, who)
	if err != nil {
		return l, readmodel.CompetitionKey{}, filters{}, err
	}
	f, err := parseFilters(c, fSeason|accept, who.snap)
	if err != nil {
		return l, readmodel.CompetitionKey{}, f, err
	}
	if k, ok := seasons.first(f.season); ok {
		f.season = k.Year
		return l, k, f, nil
	}
	return l, readmodel.CompetitionKey{}, f, notFound("competition %s has no season %d that you may see; its seasons are listed at /v4/competitions/%s", l.Code, f.season, l.Code)
}

// v4Key adds v4's filters to a cache key.
func (k cacheKey) v4(f *filters) cacheKey {
	k = k.int(f.season).int(f.matchday).int(f.limit).int(f.offset).str(strings.Join(f.statuses, ",")).str(strings.Join(f.codes, ",")).
		str(f.stage).str(f.group).str(f.date).str(f.venue).int(len(f.ids))
	for _, id := range f.ids {
		k = k.int(int(id))
	}
	if f.hasDates {
		k.b = f.from.AppendFormat(k.b, time.DateOnly)
		k.b = append(k.b, '.', '.')
		k.b = f.to.AppendFormat(k.b, time.DateOnly)
	}
	return k
}

func (s *Server) v4Competitions(c *fiber.Ctx) error {
	who := requestOf(c)
	var areas []int32
	if v := c.Context().QueryArgs().Peek("areas"); v != nil {
		var err error
		if areas, err = parseIDs("areas", string(v)); err != nil {
			return err
		}
	}
	k := s.newKey(c, who, "v4-comps", competitionsPath, full).str(string(who.tier)).str(string(c.Context().QueryArgs().Peek("areas"))).
		u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		out := v4CompetitionsResponse{Competitions: []v4CompItem{}}
		if areas != nil {
			list := string(c.Context().QueryArgs().Peek("areas"))
			out.Filters.Areas = &list
		}
		for _, l := range who.snap.Leagues() {
			area := v4AreaOf(l.Country)
			if areas != nil && !slices.Contains(areas, int32(area.id)) {
				continue
			}
			seasons := slices.DeleteFunc(who.snap.LeagueSeasons(l.Code), func(k readmodel.CompetitionKey) bool { return !who.tier.Allows(k.Tier) })
			if len(seasons) == 0 {
				continue
			}
			cur, _ := who.snap.Competition(seasons[0].ID)
			out.Competitions = append(out.Competitions, v4CompItem{ID: v4CompetitionID(l.Code), Area: area.tiny(), Name: l.Name, Code: l.Code,
				Type: v4Type(l.Code, cur.Type), Plan: v4Plan(cur.Tier), CurrentSeason: v4SeasonOf(&cur), NumberOfAvailableSeasons: len(seasons),
				LastUpdated: ts(cur.LastUpdated)})
		}
		slices.SortFunc(out.Competitions, func(a, b v4CompItem) int { return cmp.Compare(a.ID, b.ID) })
		out.Count = len(out.Competitions)
		return out, maxAgeLive
	})
}

func (s *Server) v4Competition(c *fiber.Ctx) error {
	who := requestOf(c)
	l, seasons, err := v4League(c, who)
	if err != nil {
		return err
	}
	k := seasons.key(s.newKey(c, who, "v4-comp", competitionsPath, full).str(string(l.Code))).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		seasons := seasons.list()
		cur, _ := who.snap.Competition(seasons[0].ID)
		out := v4CompFull{Area: v4AreaOf(l.Country).tiny(), ID: v4CompetitionID(l.Code), Name: l.Name, Code: l.Code, Type: v4Type(l.Code, cur.Type),
			CurrentSeason: v4SeasonOf(&cur), Seasons: make([]v4Season, len(seasons)), LastUpdated: ts(cur.LastUpdated)}
		for i, sk := range seasons {
			comp, _ := who.snap.Competition(sk.ID)
			out.Seasons[i] = v4SeasonOf(&comp)
		}
		return out, maxAgeLive
	})
}

func seasonEcho(f *filters) *string {
	s := strconv.Itoa(f.season)
	return &s
}

type v4Row struct {
	Position       int        `json:"position"`
	Team           v4TeamTiny `json:"team"`
	PlayedGames    int        `json:"playedGames"`
	Form           *string    `json:"form"`
	Won            int        `json:"won"`
	Draw           int        `json:"draw"`
	Lost           int        `json:"lost"`
	Points         int        `json:"points"`
	GoalsFor       int        `json:"goalsFor"`
	GoalsAgainst   int        `json:"goalsAgainst"`
	GoalDifference int        `json:"goalDifference"`
}

type v4Standing struct {
	Stage string  `json:"stage"`
	Type  string  `json:"type"`
	Group *string `json:"group"`
	Table []v4Row `json:"table"`
}

func (s *Server) v4Standings(c *fiber.Ctx) error {
	who := requestOf(c)
	l, key, f, err := v4SeasonRequest(c, who, fMatchday|fDate)
	if err != nil {
		return err
	}
	if key.Type == model.TypeCup {
		return notFound("competition %s is a cup: it has matches (/v4/competitions/%s/matches) but no standings", l.Code, l.Code)
	}
	matchday := f.matchday
	if f.date != "" {
		if f.matchday > 0 {
			return badRequest("date cannot be combined with matchday; use one or the other")
		}
		if key, matchday, err = v4MatchdayAt(c, who, l, key, &f); err != nil {
			return err
		}
	}
	k := s.newKey(c, who, "v4-table", competitionsPath, full).int(key.ID).v4(&f).u64(key.Version).u64(who.snap.TeamsVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		ci := x.comp(key.ID)
		t, _ := who.snap.Table(key.ID, matchday)
		out := v4StandingsResponse{Filters: v4Filters{Season: seasonEcho(&f)}, Area: ci.area.tiny(), Competition: ci.tiny, Season: ci.season, Standings: []v4Standing{}}
		if f.matchday > 0 {
			md := strconv.Itoa(f.matchday)
			out.Filters.Matchday = &md
		}
		out.Filters.Date = f.date
		// A cup upstream tables as a league (the Champions League's league
		// phase) has one TOTAL table, as its recorded group tables: no
		// HOME or AWAY, no form.
		cupLeague := key.Type == model.TypeLeague && v4Type(l.Code, key.Type) == "CUP"
		var forms map[int]string
		var stage model.RoundStage
		if key.Type == model.TypeLeague {
			stage = v4LeagueStage(who.snap, key.ID)
			if !cupLeague {
				forms = v4Forms(who.snap, key.ID, t.Matchday)
			}
		}
		for _, st := range t.Standings {
			switch {
			case st.Group == model.Thirds:
			case key.Type == model.TypeTournament:
				out.Standings = append(out.Standings, v4Standing{Stage: "GROUP_STAGE", Type: "TOTAL", Group: v4Group(st.Group), Table: v4Total(x, st.Rows, nil)})
			default:
				out.Standings = append(out.Standings, v4LeagueTables(x, ci, st, stage, forms, cupLeague)...)
			}
		}
		return out, maxAgeOf(who, key)
	})
}

// v4LeagueTables are the v4 tables of one of a league's standings: TOTAL,
// HOME and AWAY (TOTAL alone for a cup's league phase), of the league's
// stage, or PLAYOFFS for a group of its play-off phase.
func v4LeagueTables(x *v4Context, ci *v4CompInfo, st readmodel.Standing, stage model.RoundStage, forms map[int]string, totalOnly bool) []v4Standing {
	group := nonEmpty(st.Group)
	if group != nil {
		stage = model.StagePlayoffs
	}
	total := v4Standing{Stage: string(stage), Type: "TOTAL", Group: group, Table: v4Total(x, st.Rows, forms)}
	if totalOnly {
		return []v4Standing{total}
	}
	return []v4Standing{total,
		{Stage: string(stage), Type: "HOME", Group: group, Table: v4Split(x, st.Rows, &ci.comp.Rules, true)},
		{Stage: string(stage), Type: "AWAY", Group: group, Table: v4Split(x, st.Rows, &ci.comp.Rules, false)}}
}

// v4LeagueStage is the stage of a league's table: its regular fixtures'
// (model.StageOf), REGULAR_SEASON but for a league phase (the Champions
// League's since 2024, LEAGUE_STAGE) or a group stage played as one.
func v4LeagueStage(snap readmodel.Snapshot, id int) model.RoundStage {
	fs, _ := snap.CompetitionFixtures(id, readmodel.FixtureFilter{Matchday: 1})
	for i := range fs {
		if fs[i].Stage == model.Regular {
			return v4Stage(&fs[i], model.TypeLeague)
		}
	}
	return model.StageRegularSeason
}

// v4MatchdayAt is the season and matchday of the standings a date asks
// for: the table as it stood at the end of that day is, in matchday
// tables, the one of the highest matchday with a match played by then
// (never lower for a catch-up game, as upstream's current matchday). The
// season is the one asked for, else the newest the caller may see that
// had begun by then; a date before it began is a 404.
func v4MatchdayAt(c *fiber.Ctx, who *request, l model.League, key readmodel.CompetitionKey, f *filters) (readmodel.CompetitionKey, int, error) {
	seasons, given := []readmodel.CompetitionKey{key}, c.Context().QueryArgs().Peek("season") != nil
	if !given {
		_, all, _ := v4League(c, who)
		seasons = all.list()
	}
	for _, k := range seasons {
		fs, _ := who.snap.CompetitionFixtures(k.ID, readmodel.FixtureFilter{To: f.from})
		matchday := 0
		for i := range fs {
			if fx := &fs[i]; fx.Stage == model.Regular && fx.Status != model.Postponed && fx.Status != model.Canceled {
				matchday = max(matchday, fx.Matchday)
			}
		}
		if matchday > 0 {
			f.season = k.Year
			return k, matchday, nil
		}
	}
	if given {
		return key, 0, notFound("competition %s had played no match of season %d by %s; its matches are at /v4/competitions/%s/matches?season=%d",
			l.Code, key.Year, f.from.Format(time.DateOnly), l.Code, key.Year)
	}
	return key, 0, notFound("competition %s had played no match by %s; its seasons are listed at /v4/competitions/%s", l.Code, f.from.Format(time.DateOnly), l.Code)
}

// v4Total is a standing's TOTAL table: the v1 table's rows, in its order.
// forms nil leaves form null (groups, as upstream's).
func v4Total(x *v4Context, rows []readmodel.TableRow, forms map[int]string) []v4Row {
	out := make([]v4Row, len(rows))
	for i, r := range rows {
		out[i] = v4Row{Position: r.Position, Team: x.team(r.TeamID, r.TeamName), PlayedGames: r.PlayedGames, Won: r.Wins, Draw: r.Draws, Lost: r.Losses,
			Points: r.Points, GoalsFor: r.Goals, GoalsAgainst: r.GoalsAgainst, GoalDifference: r.GoalDifference}
		if forms != nil {
			form := forms[r.TeamID]
			out[i].Form = &form
		}
	}
	return out
}

// v4Split is the HOME or AWAY table: each team's games at home (away)
// alone, ranked by points, goal difference and goals, as upstream's tables
// are (spec 8.17), then by the total table. Points adjustments belong to
// the total. form is "", as upstream's.
func v4Split(x *v4Context, rows []readmodel.TableRow, rules *model.TableRules, home bool) []v4Row {
	win, draw := rules.PointsWin, rules.PointsDraw
	if win == 0 {
		win, draw = 3, 1
	}
	out := make([]v4Row, len(rows))
	empty := ""
	for i, r := range rows {
		sp := r.Away
		if home {
			sp = r.Home
		}
		out[i] = v4Row{Team: x.team(r.TeamID, r.TeamName), PlayedGames: sp.Wins + sp.Draws + sp.Losses, Form: &empty, Won: sp.Wins, Draw: sp.Draws, Lost: sp.Losses,
			Points: sp.Wins*win + sp.Draws*draw, GoalsFor: sp.Goals, GoalsAgainst: sp.GoalsAgainst, GoalDifference: sp.Goals - sp.GoalsAgainst}
	}
	slices.SortStableFunc(out, func(a, b v4Row) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(b.GoalDifference, a.GoalDifference), cmp.Compare(b.GoalsFor, a.GoalsFor))
	})
	for i := range out {
		out[i].Position = i + 1
	}
	return out
}

// v4Forms is each team's last five results up to matchday in the
// competition's table fixtures, the latest first ("W,D,L,W,W").
func v4Forms(snap readmodel.Snapshot, comp, matchday int) map[int]string {
	fs, _ := snap.CompetitionFixtures(comp, readmodel.FixtureFilter{})
	results := map[int][]string{}
	for i := len(fs) - 1; i >= 0; i-- {
		f := &fs[i]
		if f.Stage != model.Regular || f.Matchday > matchday {
			continue
		}
		side, ok := f.Outcome()
		if !ok {
			continue
		}
		for _, t := range [...]struct {
			id   int
			side model.Side
		}{{f.HomeTeamID, model.Home}, {f.AwayTeamID, model.Away}} {
			if t.id == 0 || len(results[t.id]) == 5 {
				continue
			}
			r := "L"
			switch side {
			case model.Draw:
				r = "D"
			case t.side:
				r = "W"
			}
			results[t.id] = append(results[t.id], r)
		}
	}
	forms := make(map[int]string, len(results))
	for id, r := range results {
		forms[id] = strings.Join(r, ",")
	}
	return forms
}

// fixtureRange is the read model's inclusive days for v4's [from, to),
// and false when the range holds no day.
func fixtureRange(f *filters) (readmodel.FixtureFilter, bool) {
	if !f.hasDates {
		return readmodel.FixtureFilter{}, true
	}
	return readmodel.FixtureFilter{From: f.from, To: f.to.AddDate(0, 0, -1)}, f.to.After(f.from)
}

func (s *Server) v4CompetitionMatches(c *fiber.Ctx) error {
	who := requestOf(c)
	_, key, f, err := v4SeasonRequest(c, who, fMatchday|fDates|fStatus|fLimit|fIDs|fDate|fStage|fGroup)
	if err != nil {
		return err
	}
	goals := unfoldGoals(c, who)
	k := s.newKey(c, who, "v4-comp-matches", competitionsPath, full).int(key.ID).v4(&f).int(b2i(goals)).u64(key.Version).u64(who.snap.TeamsVersion()).
		u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		ci := x.comp(key.ID)
		var fs []readmodel.Fixture
		if ff, ok := fixtureRange(&f); ok {
			ff.Matchday = f.matchday
			fs, _ = who.snap.CompetitionFixtures(key.ID, ff)
		}
		fs = page(x.keep(fs, &f), &f)
		out := v4CompMatchesResponse{Filters: v4Filters{Season: seasonEcho(&f)}, ResultSet: x.resultSetOf(fs, false, 0), Competition: ci.tiny, Matches: make([]v4Match, len(fs))}
		out.Filters.echo(&f)
		for i := range fs {
			out.Matches[i] = x.match(&fs[i], false)
		}
		x.unfold(out.Matches, fs, goals)
		return out, maxAgeOf(who, key)
	})
}

func (s *Server) v4CompetitionTeams(c *fiber.Ctx) error {
	who := requestOf(c)
	_, key, f, err := v4SeasonRequest(c, who, 0)
	if err != nil {
		return err
	}
	comp, _ := who.snap.Competition(key.ID)
	k := s.newKey(c, who, "v4-comp-teams", competitionsPath, full).int(key.ID).int(f.season).str(string(who.tier)).u64(key.Version).
		u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	for _, t := range comp.Teams {
		k = k.u64(who.snap.SquadVersion(t.TeamID))
	}
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		ci := x.comp(key.ID)
		teams, _ := who.snap.CompetitionTeams(key.ID)
		out := v4CompTeamsResponse{Count: len(teams), Filters: v4Filters{Season: seasonEcho(&f)}, Competition: ci.tiny, Season: ci.season, Teams: make([]v4TeamFull, len(teams))}
		for i, t := range teams {
			out.Teams[i] = x.teamFull(t, who.tier)
		}
		return out, maxAgeOf(who, key)
	})
}

// running is the competitions of a team's latest season that list it,
// among those a caller of tier may see.
func (x *v4Context) running(t readmodel.Team, tier model.Tier) []readmodel.Competition {
	cur, ok := x.snap.Competition(t.CurrentCompetition)
	if !ok {
		return nil
	}
	var out []readmodel.Competition
	for _, c := range x.snap.Competitions(cur.Year) {
		if c.HasTeam(t.ID) && tier.Allows(c.Tier) {
			out = append(out, c)
		}
	}
	return out
}

// teamFull renders a team with its squad; its area is its latest league's
// country (a league before a cup: readmodel.Team.CurrentCompetition), the
// world when it has none.
func (x *v4Context) teamFull(t readmodel.Team, tier model.Tier) v4TeamFull {
	out := v4TeamFull{v4Club: v4ClubOf(t), Squad: []v4SquadMember{}, Staff: []struct{}{}}
	out.Area, out.RunningCompetitions = x.teamPlace(t, tier)
	if sq, ok := x.snap.Squad(t.ID); ok {
		out.Squad = v4SquadOf(sq.Players)
	}
	return out
}

// teamPlace is a team's area (its latest league's country, the world
// when it has none) and the competitions it runs in that tier sees.
func (x *v4Context) teamPlace(t readmodel.Team, tier model.Tier) (v4AreaTiny, []v4CompTiny) {
	area := v4AreaByID[v4World].tiny()
	if t.CurrentCompetition != 0 {
		area = x.comp(t.CurrentCompetition).area.tiny()
	}
	running := []v4CompTiny{}
	for _, c := range x.running(t, tier) {
		running = append(running, x.comp(c.ID).tiny)
	}
	return area, running
}

// v4TeamRequest reads a /v4/teams/{id} path: the team and its version.
func v4TeamRequest(c *fiber.Ctx, who *request) (int, uint64, error) {
	id, err := pathID(c, "team")
	if err != nil {
		return 0, 0, err
	}
	version, ok := who.snap.TeamVersion(id)
	if !ok {
		return 0, 0, notFound("team %d does not exist", id)
	}
	return id, version, nil
}

func (s *Server) v4Team(c *fiber.Ctx) error {
	who := requestOf(c)
	id, version, err := v4TeamRequest(c, who)
	if err != nil {
		return err
	}
	k := s.newKey(c, who, "v4-team", competitionsPath, full).int(id).str(string(who.tier)).u64(version).u64(who.snap.SquadVersion(id)).
		u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		t, _ := who.snap.Team(id)
		return newV4Context(who.snap).teamFull(t, who.tier), maxAgeTeams
	})
}

// v4Leagues is the league codes of the competitions filter: codes as
// given, ids mapped to their league's code.
func v4Leagues(snap readmodel.Snapshot, f *filters) []model.LeagueCode {
	out := make([]model.LeagueCode, 0, len(f.codes))
	for _, code := range f.codes {
		if !digits(code) {
			out = append(out, model.LeagueCode(code))
			continue
		}
		id, _ := strconv.Atoi(code)
		for _, l := range snap.Leagues() {
			if v4CompetitionID(l.Code) == id {
				out = append(out, l.Code)
			}
		}
	}
	return out
}

// teamMatchesLimit is upstream's default limit of a team's matches.
const teamMatchesLimit = 100

func (s *Server) v4TeamMatches(c *fiber.Ctx) error {
	who := requestOf(c)
	id, version, err := v4TeamRequest(c, who)
	if err != nil {
		return err
	}
	f, err := parseFilters(c, fSeason|fDates|fStatus|fLimit|fCompetitions|fVenueV4, who.snap)
	if err != nil {
		return err
	}
	if f.limit == 0 {
		f.limit = teamMatchesLimit
	}
	goals := unfoldGoals(c, who)
	k := s.newKey(c, who, "v4-team-matches", competitionsPath, full).int(id).v4(&f).int(b2i(goals)).str(string(who.tier)).u64(version).
		u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		t, _ := who.snap.Team(id)
		running := x.running(t, who.tier)
		ff, ok := fixtureRange(&f)
		ff.Season, ff.Leagues = f.season, v4Leagues(who.snap, &f)
		switch f.venue {
		case "home":
			ff.Venue = model.Home
		case "away":
			ff.Venue = model.Away
		}
		if f.season == 0 && !f.hasDates && len(running) > 0 {
			// Upstream's default: the team's matches of its current season.
			ff.Season = running[0].Year
		}
		var fs []readmodel.Fixture
		if ok {
			fs, _ = who.snap.TeamFixtures(id, ff)
		}
		fs = page(x.keep(visible(who, fs), &f), &f)
		filt := v4Filters{Permission: new(string)}
		*filt.Permission = v4Plan(who.tier)
		if f.season != 0 {
			filt.Season = seasonEcho(&f)
		}
		codes := strings.Join(f.codes, ",")
		if f.codes == nil {
			var list []string
			for _, c := range running {
				list = append(list, string(c.League))
			}
			codes = strings.Join(list, ",")
		}
		filt.Competitions = &codes
		filt.echo(&f)
		out := v4MatchesResponse{Filters: filt, ResultSet: x.resultSetOf(fs, true, id), Matches: make([]v4Match, len(fs))}
		for i := range fs {
			out.Matches[i] = x.match(&fs[i], false)
		}
		x.unfold(out.Matches, fs, goals)
		return out, maxAgeLive
	})
}

func (s *Server) v4Matches(c *fiber.Ctx) error {
	who := requestOf(c)
	f, err := parseFilters(c, fDates|fStatus|fLimit|fCompetitions|fIDs|fDate|fStage|fGroup, who.snap)
	if err != nil {
		return err
	}
	days := int(f.to.Sub(f.from).Hours() / 24)
	switch {
	case f.ids != nil:
		// Matches asked for by id: any day, unless a range is given too;
		// the ids bound the work.
	case !f.hasDates:
		// Upstream's default: today (UTC), echoed as the range up to tomorrow.
		day := today(who.snap)
		f.from, f.to, f.hasDates = day, day.AddDate(0, 0, 1), true
	case days > maxCalendarDays:
		return badRequest("dateFrom to dateTo spans %d days; /v4/matches serves at most %d days at a time", days, maxCalendarDays)
	}
	goals := unfoldGoals(c, who)
	k := s.newKey(c, who, "v4-matches", competitionsPath, full).v4(&f).int(b2i(goals)).str(string(who.tier)).u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		var fs []readmodel.Fixture
		if ff, ok := fixtureRange(&f); ok {
			ff.Leagues = v4Leagues(who.snap, &f)
			switch {
			case len(f.codes) > 0 && len(ff.Leagues) == 0:
				// Competitions asked for, none of them ours: no matches.
			case f.ids != nil:
				fs = x.fixturesByID(f.ids, ff.Leagues)
			default:
				fs = who.snap.Fixtures(ff)
			}
		}
		fs = page(x.keep(visible(who, fs), &f), &f)
		filt := v4Filters{Permission: new(string)}
		*filt.Permission = v4Plan(who.tier)
		if f.codes != nil {
			codes := strings.Join(f.codes, ",")
			filt.Competitions = &codes
		}
		filt.echo(&f)
		out := v4MatchesResponse{Filters: filt, ResultSet: x.resultSetOf(fs, true, 0), Matches: make([]v4Match, len(fs))}
		for i := range fs {
			out.Matches[i] = x.match(&fs[i], false)
		}
		x.unfold(out.Matches, fs, goals)
		return out, maxAgeLive
	})
}

// v4MatchRequest reads a /v4/matches/{id} path: the match, its key and its
// competition's, 404 when there is none, 403 when the caller may not see it.
func v4MatchRequest(c *fiber.Ctx, who *request) (int, readmodel.FixtureKey, readmodel.CompetitionKey, error) {
	id, err := pathID(c, "match")
	if err != nil {
		return 0, readmodel.FixtureKey{}, readmodel.CompetitionKey{}, err
	}
	fk, ok := who.snap.FixtureKey(id)
	if !ok {
		return 0, fk, readmodel.CompetitionKey{}, notFound("match %d does not exist", id)
	}
	comp, ok := who.snap.CompetitionKey(fk.Competition)
	if !ok {
		return 0, fk, comp, notFound("match %d does not exist", id)
	}
	if !who.tier.Allows(comp.Tier) {
		return 0, fk, comp, restricted("match %d is available to %s clients only; send the X-Auth-Token of such a client", id, comp.Tier)
	}
	return id, fk, comp, nil
}

func (s *Server) v4Match(c *fiber.Ctx) error {
	who := requestOf(c)
	id, _, comp, err := v4MatchRequest(c, who)
	if err != nil {
		return err
	}
	k := s.newKey(c, who, "v4-match", competitionsPath, full).int(id).u64(comp.Version).u64(who.snap.TeamsVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		f, _ := who.snap.Fixture(id)
		return newV4Context(who.snap).match(&f, true), maxAgeOf(who, comp)
	})
}

// head2headLimit is the default number of meetings a head2head counts,
// upstream's (spec: every recorded head2head echoes limit 15).
const head2headLimit = 15

// v4H2HFilters is head2head's echo: limit and permission always, in
// upstream's order, and the filters given.
type v4H2HFilters struct {
	Limit        int     `json:"limit"`
	DateFrom     *string `json:"dateFrom,omitempty"`
	DateTo       *string `json:"dateTo,omitempty"`
	Competitions *string `json:"competitions,omitempty"`
	Permission   string  `json:"permission"`
}

type v4H2HTeam struct {
	ID     *int    `json:"id"`
	Name   *string `json:"name"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
}

type v4H2HAggregates struct {
	NumberOfMatches int       `json:"numberOfMatches"`
	TotalGoals      int       `json:"totalGoals"`
	HomeTeam        v4H2HTeam `json:"homeTeam"`
	AwayTeam        v4H2HTeam `json:"awayTeam"`
}

// v4HeadToHead is the read model's head2head of a match in v4's shape:
// the last limit meetings of its two teams that the filters keep (dateTo
// exclusive, as on every v4 route), later ones included as upstream's
// (a return leg), all of them listed, newest first.
func (s *Server) v4HeadToHead(c *fiber.Ctx) error {
	who := requestOf(c)
	id, fk, comp, err := v4MatchRequest(c, who)
	if err != nil {
		return err
	}
	f, err := parseFilters(c, fLimit|fDates|fCompetitions, who.snap)
	if err != nil {
		return err
	}
	if f.limit == 0 {
		f.limit = head2headLimit
	}
	// The meetings are in any competition the caller may see: its tier,
	// and the calendar's version for their competitions, key the answer.
	goals := unfoldGoals(c, who)
	k := s.newKey(c, who, "v4-h2h", competitionsPath, full).int(id).v4(&f).int(b2i(goals)).str(string(who.tier)).u64(comp.Version).u64(fk.PairVersion).
		u64(who.snap.TeamsVersion()).u64(who.snap.CalendarVersion()).u64(who.snap.LeaguesVersion())
	return s.respond(c, k, func() (any, int) {
		x := newV4Context(who.snap)
		fx, _ := who.snap.Fixture(id)
		q := readmodel.HeadToHeadFilter{Detailed: f.limit, Later: true}
		if f.hasDates {
			q.From, q.To = f.from, f.to
		}
		n := f.limit
		if f.codes != nil {
			// Competitions asked for, none of them ours: no meetings.
			if q.Leagues = v4Leagues(who.snap, &f); len(q.Leagues) == 0 {
				n = 0
			}
		}
		h, _ := who.snap.HeadToHeadWhere(id, n, who.tier, q)
		home, away := x.team(fx.HomeTeamID, fx.HomePlaceholder), x.team(fx.AwayTeamID, fx.AwayPlaceholder)
		out := v4H2HResponse{Filters: v4H2HFilters{Limit: f.limit, Permission: v4Plan(who.tier)}, ResultSet: x.resultSetOf(h.Fixtures, true, 0),
			Aggregates: v4H2HAggregates{NumberOfMatches: h.Count, TotalGoals: h.Goals,
				HomeTeam: v4H2HTeam{ID: home.ID, Name: home.Name, Wins: h.HomeTeamWins, Draws: h.Draws, Losses: h.AwayTeamWins},
				AwayTeam: v4H2HTeam{ID: away.ID, Name: away.Name, Wins: h.AwayTeamWins, Draws: h.Draws, Losses: h.HomeTeamWins}},
			Matches: make([]v4Match, len(h.Fixtures))}
		if f.hasDates {
			out.Filters.DateFrom, out.Filters.DateTo = date(f.from), date(f.to)
		}
		if f.codes != nil {
			codes := strings.Join(f.codes, ",")
			out.Filters.Competitions = &codes
		}
		// Newest first: the first day is the last meeting's; upstream's
		// head2head counts no played matches.
		out.ResultSet.First, out.ResultSet.Last, out.ResultSet.Played = out.ResultSet.Last, out.ResultSet.First, nil
		for i := range h.Fixtures {
			out.Matches[i] = x.match(&h.Fixtures[i], false)
		}
		x.unfold(out.Matches, h.Fixtures, goals)
		return out, maxAgeOf(who, comp)
	})
}

// teamsLimit is the page size of /v4/teams when none is given: the one
// upstream's clients pass (upstream documents none).
const teamsLimit = 50

// v4Club is what every form of a team but the tiny one begins with;
// embedded where its keys come in the answer (encoding/json writes an
// embedded struct's fields in its place). What we do not keep of a club
// (address, website, founding year, colours, ground) is null.
type v4Club struct {
	ID         int     `json:"id"`
	Name       string  `json:"name"`
	ShortName  *string `json:"shortName"`
	TLA        *string `json:"tla"`
	Crest      *string `json:"crest"`
	Address    *string `json:"address"`
	Website    *string `json:"website"`
	Founded    *int    `json:"founded"`
	ClubColors *string `json:"clubColors"`
	Venue      *string `json:"venue"`
}

func v4ClubOf(t readmodel.Team) v4Club {
	return v4Club{ID: t.ID, Name: t.Name, ShortName: t.ShortName, TLA: t.Code, Crest: t.CrestURL}
}

// v4TeamItem is a team of the /v4/teams list: the full team without area,
// competitions, coach, squad and staff.
type v4TeamItem struct {
	v4Club
	LastUpdated *string `json:"lastUpdated"`
}

// v4Teams pages through every team by id. count is the page's size, as
// upstream's: a client sees the end as a short or empty page.
func (s *Server) v4Teams(c *fiber.Ctx) error {
	who := requestOf(c)
	f, err := parseFilters(c, fLimit, who.snap)
	if err != nil {
		return err
	}
	if f.limit == 0 {
		f.limit = teamsLimit
	}
	f.offset = max(f.offset, 0)
	k := s.newKey(c, who, "v4-teams", competitionsPath, full).int(f.limit).int(f.offset).str(string(who.tier)).u64(who.snap.TeamsVersion())
	return s.respond(c, k, func() (any, int) {
		teams := who.snap.Teams(f.offset, f.limit)
		out := v4TeamsResponse{Count: len(teams), Filters: v4Filters{Limit: &f.limit, Offset: &f.offset, Permission: new(string)}, Teams: make([]v4TeamItem, len(teams))}
		*out.Filters.Permission = v4Plan(who.tier)
		for i, t := range teams {
			out.Teams[i] = v4TeamItemOf(t)
		}
		return out, maxAgeTeams
	})
}

// fixturesByID is the fixtures of ids that exist, in one of leagues when
// any are given, oldest first as every v4 match list.
func (x *v4Context) fixturesByID(ids []int32, leagues []model.LeagueCode) []readmodel.Fixture {
	var fs []readmodel.Fixture
	for _, id := range ids {
		fx, ok := x.snap.Fixture(int(id))
		if !ok {
			continue
		}
		if len(leagues) > 0 && !slices.Contains(leagues, x.comp(fx.CompetitionID).league.Code) {
			continue
		}
		fs = append(fs, fx)
	}
	slices.SortStableFunc(fs, func(a, b readmodel.Fixture) int { return cmp.Or(a.Kickoff.Compare(b.Kickoff), cmp.Compare(a.ID, b.ID)) })
	return slices.CompactFunc(fs, func(a, b readmodel.Fixture) bool { return a.ID == b.ID })
}
