package model

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// The historic v1 service's ids, which real v1 clients hard-code (PL is
// 445 in soccer-cli): a competition or team created for a league's season
// or a club the table names gets its historic id, and every other id is
// allocated around them, so such clients run unchanged.
//
//go:embed historic_ids.csv
var historicCSV string

// historic holds the table, read once.
var historic = readHistoric(historicCSV)

type historicIDs struct {
	competitions map[string]int // "PL/2017" → 445
	teams        map[string]int // normalised name → id
	// Reserved ids are never handed out by a counter: the table's, and for
	// competitions the whole historic range (its gaps are competitions of
	// the time not known today).
	reservedTeams       map[int]bool
	firstComp, lastComp int
}

func readHistoric(text string) historicIDs {
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		panic(fmt.Sprintf("model: historic_ids.csv: %v", err))
	}
	h := historicIDs{competitions: map[string]int{}, teams: map[string]int{}, reservedTeams: map[int]bool{}}
	for _, row := range rows[1:] {
		id, err := strconv.Atoi(row[1])
		if err != nil || len(row) != 4 {
			panic(fmt.Sprintf("model: historic_ids.csv: bad row %q", row))
		}
		switch row[0] {
		case "competition":
			h.competitions[row[2]] = id
			if h.firstComp == 0 || id < h.firstComp {
				h.firstComp = id
			}
			h.lastComp = max(h.lastComp, id)
		case "team":
			h.reservedTeams[id] = true
			if row[2] == "" && id != historicPlaceholder {
				h.teams[NormalizeTeamName(row[3])] = id
			}
		default:
			panic(fmt.Sprintf("model: historic_ids.csv: unknown kind %q", row[0]))
		}
	}
	return h
}

// historicPlaceholder is v1's "to be decided" team of knock-out rounds.
const historicPlaceholder = 757

// HistoricCompetitionID is the v1 id of a league's season, if it had one.
func HistoricCompetitionID(league LeagueCode, year int) (int, bool) {
	id, ok := historic.competitions[fmt.Sprintf("%s/%d", league, year)]
	return id, ok
}

// HistoricTeamID is the v1 id of the team of a name, if it had one.
func HistoricTeamID(name string) (int, bool) {
	id, ok := historic.teams[NormalizeTeamName(name)]
	return id, ok
}

// ReservedCompetitionID reports whether id is a historic competition id,
// which counters never hand out.
func ReservedCompetitionID(id int) bool { return id >= historic.firstComp && id <= historic.lastComp }

// ReservedTeamID reports whether id is a historic team id, which counters
// never hand out.
func ReservedTeamID(id int) bool { return historic.reservedTeams[id] }
