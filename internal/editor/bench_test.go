package editor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
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
