package editor

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// PutTieBreakData changes a competition's disciplinary points and
// coefficient order: change is applied to the figures held (none at
// first). Every team they name must take part.
func (e *Editor) PutTieBreakData(ctx context.Context, competition int, change func(*model.TieBreakData) error) (Change, *model.TieBreakData, error) {
	if err := model.CheckID("competition", competition); err != nil {
		return Change{}, nil, err
	}
	subject := events.Subject(events.KindTieBreakData, strconv.Itoa(competition))
	var next model.TieBreakData
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.TieBreakData](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		next = model.TieBreakData{}
		if cur != nil {
			next = *cur
			next.Disciplinary = maps.Clone(cur.Disciplinary)
			next.Coefficients = slices.Clone(cur.Coefficients)
		}
		if err := change(&next); err != nil {
			return plan{}, err
		}
		next.CompetitionID = competition
		return e.newPlan(ctx, rev, &next)
	}, false)
	return ch, &next, err
}
