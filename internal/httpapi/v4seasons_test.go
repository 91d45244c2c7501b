package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/generate"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestV4SeasonsFirst: the season a v4 request names by year, found by
// halving the league's seasons, is the one a walk through them finds, for
// every year (those without a season too) and every tier, where some
// seasons are for higher tiers than others.
func TestV4SeasonsFirst(t *testing.T) {
	const first, seasons = 2000, 9
	snap, leagues := seasonsWorld(t, first, seasons)
	for code := range leagues {
		ids := snap.LeagueSeasonIDs(code)
		if len(ids) != seasons {
			t.Fatalf("%s: %d seasons, want %d", code, len(ids), seasons)
		}
		for _, tier := range []model.Tier{model.TierAnonymous, model.TierRegistered, model.TierDonating} {
			for year := first - 1; year <= first+seasons; year++ {
				var want readmodel.CompetitionKey
				for _, id := range ids {
					if k, _ := snap.CompetitionKey(int(id)); tier.Allows(k.Tier) && k.Year == year {
						want = k
						break
					}
				}
				got, ok := v4Seasons{snap, tier, ids}.first(year)
				if got != want || ok != (want.ID != 0) {
					t.Errorf("%s %d for %s: %+v %v, want %+v", code, year, tier, got, ok, want)
				}
			}
		}
	}
}

// BenchmarkV4SeasonsFirst: a donating client's request for the oldest of
// a league's 24 seasons by year (the v4 read rows of make bench ask for a
// season ten years back).
func BenchmarkV4SeasonsFirst(b *testing.B) {
	const first, seasons = 2000, 24
	snap, leagues := seasonsWorld(b, first, seasons)
	var code model.LeagueCode
	for code = range leagues {
		break
	}
	ss := v4Seasons{snap, model.TierDonating, snap.LeagueSeasonIDs(code)}
	for b.Loop() {
		if k, ok := ss.first(first); !ok || k.Year != first {
			b.Fatalf("%s %d: %+v %v", code, first, k, ok)
		}
	}
}

// seasonsWorld is a generated world of two leagues of the given seasons
// from year first, every third season for donating clients and the one
// after it for registered ones, and its leagues.
func seasonsWorld(tb testing.TB, first, seasons int) (readmodel.Snapshot, map[model.LeagueCode]bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	store := natstest.MustOpen(tb, natstest.MustStart(tb))
	if _, err := generate.Run(ctx, store, generate.Config{Seed: 3, Leagues: 2, Seasons: seasons, FirstYear: first, MinTeams: 4, MaxTeams: 4,
		TournamentEvery: -1, SquadSize: 11, Meta: events.Meta{Editor: "test", Source: "test"}}, nil); err != nil {
		tb.Fatal(err)
	}
	ed := natstest.Editor(tb, store)
	leagues := map[model.LeagueCode]bool{}
	for id := 1; id <= 2*seasons; id++ {
		c, _, err := ed.Competition(ctx, id)
		if err != nil {
			tb.Fatal(err)
		}
		leagues[c.League] = true
		tier := map[int]model.Tier{0: model.TierDonating, 1: model.TierRegistered}[(c.Year-first)%3]
		if tier == "" {
			continue
		}
		if _, _, err := ed.PutCompetition(ctx, id, func(c *model.Competition) error { c.Tier = tier; return nil }); err != nil {
			tb.Fatal(err)
		}
	}
	if len(leagues) != 2 {
		tb.Fatalf("%d leagues generated, want 2", len(leagues))
	}
	return replayedModel(tb, ctx, store).Snapshot(), leagues
}
