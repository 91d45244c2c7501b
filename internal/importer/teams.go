package importer

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

// historicTeam is the id of the team name spells when the historic table
// gives the spelling a club whose team the stream has.
func (im *Importer) historicTeam(name string) (int, bool) {
	id, ok := model.HistoricTeamID(name)
	if !ok {
		return 0, false
	}
	for _, known := range im.names {
		if known == id {
			return id, true
		}
	}
	return 0, false
}

// prepare registers the leagues of a file's seasons and checks what its
// teams and competitions will be, before anything of it is written: the
// names nobody has are drafts of teams, and each season is a draft of its
// competition (with stand-in ids for the teams, which only need to be
// valid and distinct).
func (im *Importer) prepare(ctx context.Context, fl *file) error {
	for _, pf := range fl.src.seasons {
		l, err := im.ensureLeague(ctx, pf.league)
		if err != nil {
			return fmt.Errorf("league %s: %w", pf.league.Code, err)
		}
		pf.league = l
	}
	fl.teamIDs, fl.teamKeys = map[string]int{}, map[string]string{}
	names := teamNames{standIn: map[string]int{}, unplaced: map[string]bool{}}
	for _, pf := range fl.src.seasons {
		for _, pm := range pf.matches {
			for _, side := range [][2]string{{pm.home, pm.homeKey}, {pm.away, pm.awayKey}} {
				if err := im.placeName(fl, &names, side[0], side[1], pm.stage); err != nil {
					return err
				}
			}
		}
	}
	if len(names.unplaced) > 0 {
		im.holdBack(fl, names.unplaced)
	}
	for _, pf := range fl.src.seasons {
		draft := draftOf(pf, names.standIn)
		draft.SetDefaults()
		if err := draft.ValidateDraft(); err != nil {
			return fmt.Errorf("competition %s: %w", draft.Key(), err)
		}
	}
	return nil
}

// teamNames is what prepare learns of a file's team names: a stand-in id
// for each name a competition's draft will have, and the names no team
// has that are held back.
type teamNames struct {
	standIn  map[string]int
	unplaced map[string]bool
}

// placeName places one team name of a match of fl, once per name: a
// knock-out placeholder stays without a team, a name whose source id (key,
// "" when the source has none) or itself some team has gets its id, a name
// the historic table places joins its team when written, and any other is
// a new team's (fl.fresh) or held back (fl.hold).
func (im *Importer) placeName(fl *file, names *teamNames, name, key string, stage model.Stage) error {
	if _, done := fl.teamIDs[name]; done || name == "" {
		return nil
	}
	fl.teamIDs[name] = 0
	if key != "" {
		fl.teamKeys[name] = key
	}
	if stage == model.Playoff && placeholderRE.MatchString(name) {
		return nil
	}
	// Known or not, the name is checked: one that only looks like a
	// known one is that team by its key, and must not reach the
	// fixtures' sources.
	if err := (&model.Team{Name: name}).ValidateDraft(); err != nil {
		return fmt.Errorf("team %q: %w", name, err)
	}
	// The source's id outranks the name: a club the source renamed is
	// still the team its id was recorded for. No spelling is keyed ""
	// (model.TeamName.Validate), so a source without ids finds none.
	id, ok := im.names[model.NormalizeTeamName(key)]
	if !ok {
		id, ok = im.names[model.NormalizeTeamName(name)]
	}
	if ok {
		names.standIn[name] = len(names.standIn) + 1
		fl.teamIDs[name] = id
		fl.knownTeams++
		return nil
	}
	// A spelling of a club the historic table knows, whose team the
	// stream has under another spelling ("Man United" of 66, Manchester
	// United FC), is no unknown name: the writer joins it to that team,
	// as a name of it, and creates none.
	if _, placed := im.historicTeam(name); fl.hold && !placed {
		names.unplaced[name] = true
		return nil
	}
	names.standIn[name] = len(names.standIn) + 1
	fl.fresh = append(fl.fresh, name)
	return nil
}

// holdBack takes the matches of names no team has out of a file's
// seasons, counting them by name in the summary, and drops the seasons
// left without a match.
func (im *Importer) holdBack(fl *file, unplaced map[string]bool) {
	if im.Summary.HeldBack == nil {
		im.Summary.HeldBack = map[string]int{}
	}
	seasons := fl.src.seasons[:0]
	for _, pf := range fl.src.seasons {
		kept := pf.matches[:0]
		for _, pm := range pf.matches {
			if !unplaced[pm.home] && !unplaced[pm.away] {
				kept = append(kept, pm)
				continue
			}
			im.Summary.Fixtures.HeldBack++
			for _, name := range []string{pm.home, pm.away} {
				if unplaced[name] {
					im.Summary.HeldBack[name]++
				}
			}
		}
		pf.matches = kept
		if len(kept) > 0 {
			seasons = append(seasons, pf)
		}
	}
	fl.src.seasons = seasons
}

// ensureLeague registers a league code beyond the appendix that a file's
// format describes, unless it is known.
func (im *Importer) ensureLeague(ctx context.Context, l model.League) (model.League, error) {
	if l.Name == "" {
		return im.ed.League(ctx, l.Code)
	}
	ch, known, err := im.ed.EnsureLeague(ctx, l)
	if err == nil && ch.Action == editor.Created {
		im.Summary.Leagues.add(ch.Action)
	}
	return known, err
}

// placeholderRE matches knock-out placeholders such as "W49", "1A", "2B/3C"
// and "N.N." (not yet known).
var placeholderRE = regexp.MustCompile(`^(?:[WL]\d+|[123][A-L](?:/[A-L0-9]+)*|Winner .*|Loser .*|TBD|N\.N\.)$`)

// resolveTeams maps every team name of the files to a team id, creating
// the teams nobody has yet, those of every file at once. Placeholders of
// knock-out rounds map to 0. The spellings aliased stood for other names
// in a file: they are recorded as spellings of those names' teams.
func (im *Importer) resolveTeams(ctx context.Context, files []*file) ([]*file, error) {
	for _, fl := range files {
		im.Summary.Teams.Unchanged += fl.knownTeams
	}
	files, err := im.eachOnRefusal(files, func(files []*file) error { return im.claimTeams(ctx, files) })
	if err != nil {
		return nil, err
	}
	return im.each(files, func(_ int, fl *file) error {
		if err := im.recordTeamKeys(ctx, fl); err != nil {
			return err
		}
		for name, to := range fl.aliased {
			// A squad's team is no team of the file's matches: it is
			// one the stream knows, or its squad is refused.
			id := fl.teamIDs[to]
			if id == 0 {
				if id = im.names[model.NormalizeTeamName(to)]; id == 0 {
					continue
				}
			}
			if _, err := im.ed.PutTeamName(ctx, name, id); err != nil {
				return fmt.Errorf("alias %q of %q: %w", name, to, err)
			}
			im.names[model.NormalizeTeamName(name)] = id
		}
		return nil
	})
}

// recordTeamKeys records the source's ids of fl's teams that no team has
// yet as spellings of the teams they were placed with, so that a later
// document that names the team otherwise finds it by its id. A team held
// back has no id to record.
func (im *Importer) recordTeamKeys(ctx context.Context, fl *file) error {
	for name, key := range fl.teamKeys {
		id := fl.teamIDs[name]
		if _, known := im.names[model.NormalizeTeamName(key)]; known || id == 0 {
			continue
		}
		if _, err := im.ed.PutTeamName(ctx, key, id); err != nil {
			return fmt.Errorf("source id %s of %q: %w", key, name, err)
		}
		im.names[model.NormalizeTeamName(key)] = id
	}
	return nil
}

// eachOnRefusal runs claim for the files at once. A rule it reports
// broken (Invalid) is one file's, but which one the call does not say: the
// files are then claimed one after the other, as when each was written
// alone, and the file refused is rejected while the others go on. It
// returns the files not rejected, or the first error that is not a file's
// own.
func (im *Importer) eachOnRefusal(files []*file, claim func([]*file) error) ([]*file, error) {
	err := claim(files)
	switch {
	case err == nil:
		return files, nil
	case model.ErrorCode(err) != model.Invalid:
		return nil, err
	case len(files) == 1:
		return im.each(files, func(int, *file) error { return err })
	}
	return im.each(files, func(_ int, fl *file) error { return claim([]*file{fl}) })
}

// claimTeams claims the names of the files' teams that nobody had when
// their group began and the import has not met since, in one call.
func (im *Importer) claimTeams(ctx context.Context, files []*file) error {
	var fresh []string
	mentions := 0 // of fresh names, by every file
	seen := map[string]bool{}
	for _, fl := range files {
		mentions += len(fl.fresh)
		for _, name := range fl.fresh {
			norm := model.NormalizeTeamName(name)
			if _, known := im.names[norm]; !known && !seen[norm] {
				seen[norm] = true
				fresh = append(fresh, name)
			}
		}
	}
	if mentions == 0 {
		return nil
	}
	var created []string
	if len(fresh) > 0 {
		got, made, err := im.ed.TeamsByName(ctx, fresh)
		if err != nil {
			return fmt.Errorf("claim %d new team names: %w", len(fresh), err)
		}
		for name, id := range got {
			im.names[model.NormalizeTeamName(name)] = id
		}
		created = made
	}
	// A name new to several files is created by the first, as when
	// they were written one after the other.
	im.Summary.Teams.Created += len(created)
	im.Summary.Teams.Unchanged += mentions - len(created)
	for _, fl := range files {
		for _, name := range fl.fresh {
			fl.teamIDs[name] = im.names[model.NormalizeTeamName(name)]
		}
	}
	return nil
}

// ReadAliases reads a CSV file of team spellings, `spelling,team`, as in
// says: each line maps a spelling a file uses to the name of the team it
// means.
func ReadAliases(path string, in datafile.Options) (map[string]string, error) {
	f, err := in.Open(path)
	if err != nil {
		return nil, model.Invalidf("aliases", path, "%v", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	header, err := r.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, aliasesError(path, err)
	}
	if len(header) != 2 || header[0] != "spelling" || header[1] != "team" {
		return nil, model.Invalidf("aliases", path, "must start with the header spelling,team")
	}
	out := map[string]string{}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, aliasesError(path, err)
		}
		line, _ := r.FieldPos(0)
		if len(row) != 2 || model.NormalizeTeamName(row[0]) == "" || model.NormalizeTeamName(row[1]) == "" {
			return nil, model.Invalidf("aliases", path, "line %d: want a spelling and the team's name", line)
		}
		for _, name := range row {
			if err := model.CheckText("name", name, model.MaxName); err != nil {
				return nil, model.Invalidf("aliases", path, "line %d: %v", line, err)
			}
		}
		out[model.NormalizeTeamName(row[0])] = strings.TrimSpace(row[1])
	}
}

// aliasesError is the error of an aliases file that stops being read: the
// reader's own when it refused the file (its size, its encoding), else the
// file is not CSV.
func aliasesError(path string, err error) error {
	if model.ErrorCode(err) == model.Invalid {
		return model.Invalidf("aliases", path, "%v", err)
	}
	return model.Invalidf("aliases", path, "is not CSV: %v", err)
}
