// Package generate publishes a synthetic football world, deterministic from
// a seed, for benchmarks and demonstrations: leagues of real size over many
// seasons with promotion and relegation, a tournament with groups and
// knock-out rounds every few seasons, squads, points deductions, live edit
// streams and extra edits per fixture. It writes straight to the stream
// with compare-and-set, reserving ids in blocks and publishing with an
// asynchronous bulk, so a million fixtures take minutes, not hours.
package generate

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// Summary is what a run published.
type Summary struct {
	Seasons      int
	Leagues      int // synthetic league codes registered
	Competitions int
	Teams        int
	Players      int
	Fixtures     int
	Adjustments  int
	// LiveFixtures are the ids of the fixtures published as live edit
	// streams.
	LiveFixtures []int
	// Messages is every message published, revisions included.
	Messages int
	Elapsed  time.Duration
}

// FixturesPerSecond is the rate at which fixtures were generated.
func (s Summary) FixturesPerSecond() float64 {
	return float64(s.Fixtures) / max(s.Elapsed.Seconds(), 1e-9)
}

// Print writes the summary for an editor.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "generated %d seasons in %s: %d competitions, %d teams, %d players, %d fixtures (%.0f/s), %d adjustments, %d live fixtures, %d new leagues; %d messages\n",
		s.Seasons, s.Elapsed.Round(time.Millisecond), s.Competitions, s.Teams, s.Players, s.Fixtures,
		s.FixturesPerSecond(), s.Adjustments, len(s.LiveFixtures), s.Leagues, s.Messages)
}

// worldStream tells the world's random numbers apart from those of the
// live fixtures, which are seeded with the seed and a fixture id.
const worldStream = 0x776f726c64

// Run publishes the world cfg describes to store. The stream must not hold
// competitions of the leagues and seasons to generate: a second run would
// duplicate them. progress, if not nil, receives the fixture rate.
func Run(ctx context.Context, store *events.Store, cfg Config, progress io.Writer) (Summary, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return Summary{}, model.Invalidf("generate", "", "%v", err)
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(cfg.Seed, worldStream))
	p, err := newPlan(&cfg, r)
	if err != nil {
		return Summary{}, model.Invalidf("generate", "", "%v", err)
	}
	g := &gen{cfg: &cfg, r: r, plan: p, store: store, ed: &editor.Editor{Store: store, Meta: cfg.Meta},
		liveLeft: cfg.LiveMatches}
	if err := g.checkFresh(ctx); err != nil {
		return Summary{}, err
	}
	if err := g.registerLeagues(ctx); err != nil {
		return Summary{}, err
	}
	if err := g.reserveIDs(ctx); err != nil {
		return Summary{}, err
	}
	g.pub = newPublisher(g.ed, progress, p.fixtures)
	if err := g.publishTeams(ctx); err != nil {
		return g.sum, err
	}
	for s := range p.seasons {
		if err := g.season(ctx, s); err != nil {
			return g.sum, err
		}
	}
	if err := g.pub.flush(ctx); err != nil {
		return g.sum, err
	}
	g.sum.Seasons = p.seasons
	g.sum.Fixtures = g.pub.fixtures
	g.sum.Messages += g.pub.messages
	g.sum.Elapsed = time.Since(start)
	return g.sum, nil
}

// gen is one run.
type gen struct {
	cfg   *Config
	r     *rand.Rand
	plan  *plan
	store *events.Store
	ed    *editor.Editor
	pub   *publisher
	sum   Summary

	// compIDs and fixtureIDs are the ids reserved for the plan, in the
	// order they are given.
	compIDs, fixtureIDs []int
	liveLeft            int
}

// checkFresh refuses to generate seasons that the stream already holds.
func (g *gen) checkFresh(ctx context.Context) error {
	codes := map[model.LeagueCode]bool{tournamentCode: g.cfg.TournamentEvery > 0}
	for _, l := range g.plan.leagues {
		codes[l.spec.Code] = true
	}
	last := g.cfg.FirstYear + g.plan.seasons - 1
	err := g.store.Scan(ctx, events.All(events.KindCompetition), func(ev events.Event) error {
		c, err := events.Decode[model.Competition](ev.Data)
		if err != nil {
			return err
		}
		if codes[c.League] && c.Year >= g.cfg.FirstYear && c.Year <= last {
			return &model.Error{Code: model.Conflict, Field: "competition", Value: fmt.Sprintf("%s %d", c.League, c.Year),
				Message: "exists already: generate into a fresh stream, or choose other years"}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check existing competitions: %w", err)
	}
	return nil
}

// registerLeagues adds the synthetic league codes.
func (g *gen) registerLeagues(ctx context.Context) error {
	for _, l := range g.plan.leagues {
		if !l.synthetic {
			continue
		}
		ch, err := g.ed.PutLeague(ctx, l.spec)
		if err != nil {
			return fmt.Errorf("register league %s: %w", l.spec.Code, err)
		}
		if ch.Action != editor.Unchanged {
			g.sum.Leagues++
			g.sum.Messages++
		}
	}
	return nil
}

// reserveIDs takes every id the plan needs in one block per kind, in a
// fixed order, so that a fresh stream hands out the same ids every time.
func (g *gen) reserveIDs(ctx context.Context) error {
	teams, err := g.ed.NewIDs(ctx, events.KindTeam, len(g.plan.teams))
	if err != nil {
		return fmt.Errorf("reserve team ids: %w", err)
	}
	for i, t := range g.plan.teams {
		t.id = teams[i]
	}
	if g.compIDs, err = g.ed.NewIDs(ctx, events.KindCompetition, g.plan.comps); err != nil {
		return fmt.Errorf("reserve competition ids: %w", err)
	}
	if g.fixtureIDs, err = g.ed.NewIDs(ctx, events.KindFixture, g.plan.fixtures); err != nil {
		return fmt.Errorf("reserve fixture ids: %w", err)
	}
	g.sum.Messages += 3
	return nil
}

// publishTeams publishes every team with its name and squad.
func (g *gen) publishTeams(ctx context.Context) error {
	players, err := g.ed.NewIDs(ctx, "player", len(g.plan.teams)*g.cfg.SquadSize)
	if err != nil {
		return fmt.Errorf("reserve player ids: %w", err)
	}
	g.sum.Messages++
	for i, t := range g.plan.teams {
		te := teamEntity(t)
		sq := squad(g.r, t, players[i*g.cfg.SquadSize:(i+1)*g.cfg.SquadSize], g.cfg.FirstYear)
		for _, v := range []any{te, &model.TeamName{Name: t.name, TeamID: t.id}, &sq} {
			if err := g.pub.add(ctx, v); err != nil {
				return err
			}
		}
		g.sum.Teams++
		g.sum.Players += len(sq.Players)
	}
	return nil
}

// competition publishes c with the claim on its league's season.
func (g *gen) competition(ctx context.Context, c *model.Competition) error {
	if err := g.pub.add(ctx, &model.CompetitionKey{League: c.League, Year: c.Year, CompetitionID: c.ID}); err != nil {
		return err
	}
	return g.pub.add(ctx, c)
}

func (g *gen) compID() int {
	id := g.compIDs[0]
	g.compIDs = g.compIDs[1:]
	g.sum.Competitions++
	return id
}

func (g *gen) fixtureID() int {
	id := g.fixtureIDs[0]
	g.fixtureIDs = g.fixtureIDs[1:]
	return id
}

// publishFixture publishes f, the final state of a fixture of c, with the
// story kind k.
func (g *gen) publishFixture(ctx context.Context, c *model.Competition, f model.Fixture, k kind, homePH, awayPH string) error {
	j := &fixtureJob{final: f, kind: k, extra: g.cfg.ExtraEdits, updates: g.cfg.LiveUpdates,
		homePlaceholder: homePH, awayPlaceholder: awayPH, seed: g.cfg.Seed}
	return g.pub.fixture(ctx, c, j)
}
