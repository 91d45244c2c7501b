package importer

import (
	"context"
	"fmt"
	"sort"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

// competitions finds or creates the competitions of the files' seasons
// and adds each season's teams and matchdays to its competition. The
// seasons nobody had when the group began are claimed together, those of
// every file in one call (a season in two files is claimed by the first,
// and the second adds to it, as when they were written one after the
// other).
func (im *Importer) competitions(ctx context.Context, files []*file) ([]*file, error) {
	for _, fl := range files {
		fl.drafts = make([]model.Competition, len(fl.src.seasons))
		fl.claimedComps = make([]editor.ClaimedCompetition, len(fl.src.seasons))
		for i, pf := range fl.src.seasons {
			fl.drafts[i] = draftOf(pf, fl.teamIDs)
		}
	}
	files, err := im.eachOnRefusal(files, func(files []*file) error { return im.claimCompetitions(ctx, files) })
	if err != nil {
		return nil, err
	}
	return im.each(files, func(_ int, fl *file) error {
		fl.comps = make([]*model.Competition, len(fl.src.seasons))
		fl.existed = map[int]bool{}
		for i, pf := range fl.src.seasons {
			c, found, err := im.competition(ctx, fl.src.format, pf, fl.drafts[i], fl.claimedComps[i])
			if err != nil {
				return err
			}
			fl.comps[i], fl.existed[c.ID] = c, found
		}
		return nil
	})
}

// claimCompetitions claims the seasons of the files that the import does
// not know, in one call (a season twice in a file is claimed once).
func (im *Importer) claimCompetitions(ctx context.Context, files []*file) error {
	var fresh []model.Competition
	type at struct {
		file   *file
		season int
	}
	var claimedAt []at // the season of each of fresh
	freshKeys := map[string]bool{}
	for _, fl := range files {
		for i, draft := range fl.drafts {
			key := draft.Key()
			if _, ok := im.comps[key]; !ok && !freshKeys[key] {
				freshKeys[key] = true
				fresh = append(fresh, draft)
				claimedAt = append(claimedAt, at{fl, i})
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	got, err := im.ed.ClaimCompetitions(ctx, fresh)
	if err != nil {
		return fmt.Errorf("claim %d competitions: %w", len(fresh), err)
	}
	for j, a := range claimedAt {
		a.file.claimedComps[a.season] = got[j]
	}
	return nil
}

// draftOf is the competition a season describes.
func draftOf(pf *parsedFile, teamIDs map[string]int) model.Competition {
	var teams []model.CompetitionTeam
	seen := map[int]bool{}
	for _, pm := range pf.matches {
		if pm.stage != model.Regular && pf.kind != model.TypeCup {
			continue
		}
		for _, name := range []string{pm.home, pm.away} {
			if id := teamIDs[name]; id != 0 && !seen[id] {
				seen[id] = true
				teams = append(teams, model.CompetitionTeam{TeamID: id, Group: pf.groups[name]})
			}
		}
	}
	sort.Slice(teams, func(i, j int) bool { return teams[i].TeamID < teams[j].TeamID })
	draft := model.Competition{Caption: pf.caption, League: pf.league.Code, Year: pf.year, Type: pf.kind,
		NumberOfMatchdays: pf.matchdays, Teams: teams}
	if pf.rules != nil {
		draft.Rules = *pf.rules
	}
	return draft
}

// competition settles the competition of a season: the one its claim
// created from draft, or an existing one, to which it adds the season's
// teams and matchdays. Everything else of an existing competition
// (caption, access tier, table rules) is the editors' decision, or that of
// the source that created it: an import never changes it. claimed is the
// season's claim, zero when it was not claimed (the import knew its
// competition). found tells whether the competition may hold fixtures this
// import did not write from files of format.
func (im *Importer) competition(ctx context.Context, format string, pf *parsedFile, draft model.Competition, claimed editor.ClaimedCompetition) (*model.Competition, bool, error) {
	if claimed.ID != 0 {
		im.comps[draft.Key()] = claimed.ID
		if claimed.Created {
			im.created[claimed.ID] = format
			im.Summary.Competitions.Created++
			draft.ID = claimed.ID
			draft.SetDefaults()
			return &draft, false, nil
		}
	}
	id := im.comps[draft.Key()]
	ch, c, err := im.ed.MergeCompetition(ctx, id, func(c *model.Competition) error {
		have := map[int]bool{}
		for _, t := range c.Teams {
			have[t.TeamID] = true
		}
		for _, t := range draft.Teams {
			if !have[t.TeamID] {
				c.Teams = append(c.Teams, t)
			}
		}
		sort.Slice(c.Teams, func(i, j int) bool { return c.Teams[i].TeamID < c.Teams[j].TeamID })
		c.NumberOfMatchdays = max(c.NumberOfMatchdays, pf.matchdays)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("competition %s: %w", draft.Key(), err)
	}
	im.Summary.Competitions.add(ch.Action)
	own := im.created[id] == format
	if !own {
		// Its fixtures are no longer of one format.
		delete(im.created, id)
	}
	return c, !own, nil
}
