package editor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// BenchmarkClaimCompetitions claims the 440 seasons of england.csv's size
// (four built-in leagues, 110 years) into a fresh server, one by one as the
// importer did and in one batch. An operation is the whole set; its time
// is mostly round trips.
func BenchmarkClaimCompetitions(b *testing.B) {
	var drafts []model.Competition
	for _, l := range []model.LeagueCode{"PL", "ELC", "EL1", "BL1"} {
		for y := 1888; y < 1998; y++ {
			drafts = append(drafts, model.Competition{League: l, Year: y, Caption: fmt.Sprintf("%s %d", l, y)})
		}
	}
	for _, bc := range []struct {
		name  string
		claim func(context.Context, *editor.Editor) error
	}{
		{"one-by-one", func(ctx context.Context, ed *editor.Editor) error {
			for _, d := range drafts {
				if _, _, err := ed.ClaimCompetition(ctx, d); err != nil {
					return err
				}
			}
			return nil
		}},
		{"batch", func(ctx context.Context, ed *editor.Editor) error {
			_, err := ed.ClaimCompetitions(ctx, drafts)
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				ed := natstest.Editor(b, natstest.MustOpen(b, natstest.MustStart(b)))
				b.StartTimer()
				if err := bc.claim(context.Background(), ed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClaimSources claims the sources of a season's sixteen league
// files (about 6,000 matches over 16 competitions) into a fresh server in
// one call, as the importer does before it sends the first fixture.
func BenchmarkClaimSources(b *testing.B) {
	var claims []editor.SourceClaim
	for c := range 16 {
		claim := editor.SourceClaim{Competition: 1000 + c}
		for m := range 380 {
			claim.Sources = append(claim.Sources, fmt.Sprintf("openfootball:L%d:2015:Matchday %d|Team %d|Team %d", c, m/10+1, m%20, (m*7+3)%20))
		}
		claims = append(claims, claim)
	}
	for range b.N {
		b.StopTimer()
		ed := natstest.Editor(b, natstest.MustOpen(b, natstest.MustStart(b)))
		b.StartTimer()
		if _, err := ed.ClaimSources(context.Background(), events.KindFixture, claims); err != nil {
			b.Fatal(err)
		}
	}
}
