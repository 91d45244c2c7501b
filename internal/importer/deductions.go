package importer

import (
	"context"
	"fmt"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// putDeductions records a file's points deductions as adjustments of the
// competitions imported, or updates those an earlier import made: an
// imported adjustment's source is its team and reason, claimed like a
// fixture's.
func (im *Importer) putDeductions(ctx context.Context, path string, ds []deduction) error {
	if len(ds) == 0 {
		return nil
	}
	stored := map[int]map[string]int{} // competition → source → adjustment id
	err := im.ed.Store.Scan(ctx, events.All(events.KindAdjustment), func(ev events.Event) error {
		a, err := events.Decode[model.Adjustment](ev.Data)
		if stored[a.CompetitionID] == nil {
			stored[a.CompetitionID] = map[string]int{}
		}
		stored[a.CompetitionID][deductionSource(a)] = a.ID
		return err
	})
	if err != nil {
		return fmt.Errorf("load adjustments: %w", err)
	}
	reject := func(d deduction, err error) error {
		switch model.ErrorCode(err) {
		case model.Invalid, model.NotFound:
			im.Summary.Adjustments.Rejected++
			im.Summary.reject(Rejection{File: path, Line: d.line, What: fmt.Sprintf("deduction of %s %d", d.team, d.year), Err: err})
			return nil
		}
		return err
	}
	comps := map[int]*model.Competition{}
	byComp := map[int][]model.Adjustment{}
	var order []int
	for _, d := range ds {
		a, err := im.placeDeduction(ctx, d, comps)
		if err != nil {
			if err := reject(d, err); err != nil {
				return err
			}
			continue
		}
		if byComp[a.CompetitionID] == nil {
			order = append(order, a.CompetitionID)
		}
		byComp[a.CompetitionID] = append(byComp[a.CompetitionID], a)
	}
	for _, comp := range order {
		as := byComp[comp]
		var sources []string
		for _, a := range as {
			sources = append(sources, deductionSource(a))
		}
		ids, err := im.ed.SourceIDs(ctx, events.KindAdjustment, comp, sources, stored[comp])
		if err != nil {
			return err
		}
		for _, a := range as {
			a.ID = ids[deductionSource(a)]
			ch, err := im.ed.ImportAdjustment(ctx, a)
			if err != nil {
				if err := reject(deduction{team: strconv.Itoa(a.TeamID), year: comps[comp].Year}, err); err != nil {
					return err
				}
				continue
			}
			im.Summary.Adjustments.add(ch.Action)
		}
	}
	return nil
}

// placeDeduction finds the competition and team of a deduction: the
// competition of one of its leagues in its season that has the team.
func (im *Importer) placeDeduction(ctx context.Context, d deduction, comps map[int]*model.Competition) (model.Adjustment, error) {
	team, ok := im.names[model.NormalizeTeamName(d.team)]
	if !ok {
		return model.Adjustment{}, model.NotFoundf("team %q: not imported", d.team)
	}
	for _, code := range d.leagues {
		id, ok := im.comps[fmt.Sprintf("%s/%d", code, d.year)]
		if !ok {
			continue
		}
		c, ok := comps[id]
		if !ok {
			var err error
			if c, _, err = im.ed.Competition(ctx, id); err != nil {
				return model.Adjustment{}, err
			}
			comps[id] = c
		}
		if c.HasTeam(team) {
			return model.Adjustment{CompetitionID: id, TeamID: team, Points: -d.points, Reason: d.reason}, nil
		}
	}
	return model.Adjustment{}, model.NotFoundf("%s: no imported competition of %v in %d has this team", d.team, d.leagues, d.year)
}

// deductionSource is an imported adjustment's natural key: its team and
// reason within its competition.
func deductionSource(a model.Adjustment) string {
	return fmt.Sprintf("deduction|%d|%s", a.TeamID, a.Reason)
}
