package readmodel

import (
	"cmp"
	"slices"

	"github.com/footdata/footballd/pkg/model"
)

// Team is a team with its latest competition.
type Team struct {
	model.Team
	// CurrentCompetition is the team's competition of the latest season
	// (a league before a cup in the same season), 0 if none;
	// CurrentLeague is that competition's league.
	CurrentCompetition int
	CurrentLeague      model.LeagueCode
	// Version changes with the team, its latest competition and its
	// fixtures; answers that show other teams' names depend on
	// Snapshot.TeamsVersion too.
	Version uint64
}

func (s Snapshot) team(id int) (*teamSnap, bool) {
	if !fitsInt32(id) {
		return nil, false
	}
	t, ok := s.w.teams.get(int32(id))
	if !ok || t.team == nil {
		return nil, false
	}
	return t, true
}

func (s Snapshot) teamView(t *teamSnap, tier model.Tier) Team {
	v := Team{Team: cloneTeam(t.team), Version: t.version}
	latest := t.latest[max(tier.Rank(), 0)]
	if c, ok := s.comp(int(latest)); ok {
		v.CurrentCompetition = int(latest)
		v.CurrentLeague = c.comp.League
	}
	return v
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cloneTeam(t *model.Team) model.Team {
	c := *t
	c.ShortName, c.Code, c.CrestURL, c.SquadMarketValue = clonePtr(t.ShortName), clonePtr(t.Code), clonePtr(t.CrestURL), clonePtr(t.SquadMarketValue)
	return c
}

// Team returns one team.
func (s Snapshot) Team(id int) (Team, bool) {
	t, ok := s.team(id)
	if !ok {
		return Team{}, false
	}
	return s.teamView(t, model.TierAnonymous), true
}

// TeamVersion is the version of team id, without building the team: all
// that serving a cached rendering of it needs to know.
func (s Snapshot) TeamVersion(id int) (uint64, bool) {
	t, ok := s.team(id)
	if !ok {
		return 0, false
	}
	return t.version, true
}

// CompetitionTeams returns the teams a competition lists, in its order;
// teams whose own entity is not known are left out.
func (s Snapshot) CompetitionTeams(id int) ([]Team, bool) {
	c, ok := s.comp(id)
	if !ok {
		return nil, false
	}
	list := make([]Team, 0, len(c.comp.Teams))
	for _, ct := range c.comp.Teams {
		if t, ok := s.team(ct.TeamID); ok {
			list = append(list, s.teamView(t, model.TierAnonymous))
		}
	}
	return list, true
}

// SearchTeams returns the teams whose name or short name contains q, case
// folded, ascending by id, each with its current competition among those
// a caller of tier may see.
func (s Snapshot) SearchTeams(q string, tier model.Tier) []Team {
	ids := s.w.search.find(q)
	list := make([]Team, 0, len(ids))
	for _, id := range ids {
		if t, ok := s.team(int(id)); ok {
			list = append(list, s.teamView(t, tier))
		}
	}
	return list
}

// Teams returns a page of every team, ascending by id: limit teams from
// the offset-th (counting from 0). It walks the search index's list of
// team ids, which already holds every team in order.
func (s Snapshot) Teams(offset, limit int) []Team {
	ids := s.w.search.team
	var list []Team
	for i, seen := 0, 0; i < len(ids) && len(list) < limit; i++ {
		// A team whose short name differs from its name is listed twice,
		// side by side.
		if i > 0 && ids[i] == ids[i-1] {
			continue
		}
		if seen++; seen <= offset {
			continue
		}
		if t, ok := s.team(int(ids[i])); ok {
			list = append(list, s.teamView(t, model.TierAnonymous))
		}
	}
	return list
}

// TeamsVersion changes whenever any team changes: the version of any
// answer that shows other teams' names.
func (s Snapshot) TeamsVersion() uint64 { return s.w.teamsVersion }

// SearchVersion changes whenever any team or any team's current
// competition changes: the version of searches.
func (s Snapshot) SearchVersion() uint64 { return max(s.w.teamsVersion, s.w.currentVersion) }

// Squad is the players of a team.
type Squad struct {
	TeamID  int
	Players []model.Player
	Version uint64
}

// SquadVersion is the version of a team's players (0 when it has none),
// without copying them.
func (s Snapshot) SquadVersion(team int) uint64 {
	if !fitsInt32(team) {
		return 0
	}
	q, ok := s.w.squads.get(int32(team))
	if !ok {
		return 0
	}
	return q.version
}

// Squad returns a team's players.
func (s Snapshot) Squad(team int) (Squad, bool) {
	if !fitsInt32(team) {
		return Squad{}, false
	}
	q, ok := s.w.squads.get(int32(team))
	if !ok {
		return Squad{}, false
	}
	players := make([]model.Player, len(q.squad.Players))
	for i, p := range q.squad.Players {
		p.JerseyNumber, p.DateOfBirth, p.ContractUntil, p.MarketValue = clonePtr(p.JerseyNumber), clonePtr(p.DateOfBirth), clonePtr(p.ContractUntil), clonePtr(p.MarketValue)
		players[i] = p
	}
	return Squad{TeamID: team, Players: players, Version: q.version}, true
}

// Client returns the registered client whose token has the given hash
// (model.HashToken); revoked clients are not found. A client the snapshot
// does not reflect yet is found if the model learned it from the stream's
// leader (Model.LearnClient) at a revision the snapshot is behind.
func (s Snapshot) Client(tokenHash string) (model.Client, bool) {
	if c, ok := s.w.clients[tokenHash]; ok {
		return *c, true
	}
	if s.learned != nil {
		if learned := s.learned.Load(); learned != nil {
			if l, ok := (*learned)[tokenHash]; ok && l.seq > s.w.seq {
				return l.c, true
			}
		}
	}
	return model.Client{}, false
}

// ClientNamed returns the registered client of that name; revoked clients
// are not found.
func (s Snapshot) ClientNamed(name string) (model.Client, bool) {
	c, ok := s.w.clientNames[name]
	if !ok {
		return model.Client{}, false
	}
	return *c, true
}

// Webhooks returns the webhooks, removed ones included (a removed webhook
// is told from one not known yet), by name. The slice is shared: callers
// must not change it.
func (s Snapshot) Webhooks() []model.Webhook { return s.w.webhooks }

// Registered returns the stream sequence of the message that registered
// the webhook named name as it is now (0: none known). Events of edits up
// to it came before the webhook existed.
func (s Snapshot) Registered(name string) uint64 { return s.w.registered[name] }

// ClientsVersion changes whenever any client changes.
func (s Snapshot) ClientsVersion() uint64 { return s.w.clientsVersion }

// Leagues returns the known leagues, built in and added, by code.
func (s Snapshot) Leagues() []model.League { return slices.Clone(s.w.leagues) }

// League returns one league.
func (s Snapshot) League(code model.LeagueCode) (model.League, bool) {
	i, found := slices.BinarySearchFunc(s.w.leagues, code, func(l model.League, c model.LeagueCode) int {
		return cmp.Compare(l.Code, c)
	})
	if !found {
		return model.League{}, false
	}
	return s.w.leagues[i], true
}

// LeaguesVersion changes whenever an editor adds or changes a league.
func (s Snapshot) LeaguesVersion() uint64 { return s.w.leaguesVersion }
