package model

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// The historic v1 service's ids, which real v1 clients hard-code (PL is
// 445 in soccer-cli): a competition created for a league's season, or a
// team for a spelling of a club, that the table names gets its historic
// id, and every other id is allocated above or around the historic
// ranges, so such clients run unchanged.
//
//go:embed historic_ids.csv
var historicCSV string

// historic holds the table, read once.
var historic = readHistoric(historicCSV)

type historicIDs struct {
	competitions map[string]int // "PL/2017" → 445
	teams        map[string]int // normalised spelling → id
	spellings    map[int][]string
	// The ranges counters never hand out: from the lowest id of the table
	// to its highest. Their gaps are competitions and clubs of the time
	// not known today, which may still be found.
	firstComp, lastComp int
	lastTeam            int
}

// historicNameSep separates the spellings of one team in the table.
const historicNameSep = "|"

func readHistoric(text string) historicIDs {
	h, err := parseHistoric(text)
	if err != nil {
		panic(fmt.Sprintf("model: historic_ids.csv: %v", err))
	}
	return h
}

// parseHistoric reads the table: `competition,ID,LEAGUE/YEAR,caption`
// and `team,ID,,spelling|spelling|…` rows. A team row without a spelling
// only reserves its id; a spelling that two ids claim (after
// normalisation) is an error, so that a name never stands for two clubs.
func parseHistoric(text string) (historicIDs, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		return historicIDs{}, err
	}
	if len(rows) == 0 {
		return historicIDs{}, fmt.Errorf("no header")
	}
	h := historicIDs{competitions: map[string]int{}, teams: map[string]int{}, spellings: map[int][]string{}}
	for _, row := range rows[1:] {
		id, err := strconv.Atoi(row[1])
		if err != nil || len(row) != 4 || CheckID("id", id) != nil {
			return historicIDs{}, fmt.Errorf("bad row %q", row)
		}
		switch row[0] {
		case "competition":
			h.competitions[row[2]] = id
			if h.firstComp == 0 || id < h.firstComp {
				h.firstComp = id
			}
			h.lastComp = max(h.lastComp, id)
		case "team":
			h.lastTeam = max(h.lastTeam, id)
			if row[2] != "" {
				return historicIDs{}, fmt.Errorf("team %d: the key column is empty for teams", id)
			}
			if row[3] == "" {
				continue
			}
			for _, name := range strings.Split(row[3], historicNameSep) {
				key := NormalizeTeamName(name)
				if key == "" {
					return historicIDs{}, fmt.Errorf("team %d: empty spelling in %q", id, row[3])
				}
				switch other, ok := h.teams[key]; {
				case ok && other != id:
					return historicIDs{}, fmt.Errorf("spelling %q names teams %d and %d", name, other, id)
				case !ok:
					h.teams[key] = id
					h.spellings[id] = append(h.spellings[id], name)
				}
			}
		default:
			return historicIDs{}, fmt.Errorf("unknown kind %q", row[0])
		}
	}
	return h, nil
}

// HistoricCompetitionID is the v1 id of a league's season, if it had one.
func HistoricCompetitionID(league LeagueCode, year int) (int, bool) {
	id, ok := historic.competitions[fmt.Sprintf("%s/%d", league, year)]
	return id, ok
}

// HistoricTeamID is the v1 id of the club a spelling names, if it had one.
// The spelling is matched as importers match team names
// (NormalizeTeamName).
func HistoricTeamID(name string) (int, bool) {
	id, ok := historic.teams[NormalizeTeamName(name)]
	return id, ok
}

// HistoricTeamSpellings are the spellings the table gives the club of
// historic id id, one per normalised name.
func HistoricTeamSpellings(id int) []string { return historic.spellings[id] }

// ReservedCompetitionIDs is the range of the historic competition ids,
// which counters never hand out.
func ReservedCompetitionIDs() (first, last int) { return historic.firstComp, historic.lastComp }

// ReservedTeamIDs is the range of the historic team ids, from 1 to the
// highest the table knows, which counters never hand out.
func ReservedTeamIDs() (first, last int) { return 1, historic.lastTeam }
