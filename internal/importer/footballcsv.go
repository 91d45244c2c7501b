package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// The footballcsv layout (github.com/footballcsv/cache.footballdata, a
// re-cut of football-data.co.uk's files): one file per league and season,
// <season>/<code>.csv (2015-16/eng.1.csv; calendar-year leagues 2015/),
// with the columns Date (Sat Aug 14 1993), Team 1, FT, HT and Team 2; a
// score is 0-3, "?" where unknown. No times, rounds, odds or cards.

// footballCSVFormat prefixes the Source of every fixture this format
// writes.
const footballCSVFormat = "footballcsv"

var footballCSVColumns = []string{"Date", "Team 1", "FT", "Team 2"}

// readFootballCSV reads one footballcsv file. League and season come
// from its name (2015-16/eng.1.csv is PL 2015), or from --league and
// --season; without a season folder, the season of the first match.
func readFootballCSV(name string, body []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	base := strings.TrimSuffix(filepath.Base(name), ".csv")
	code := opts.League
	if code == "" {
		if code = footballCSVLeagues[base]; code == "" {
			return nil, model.Invalidf("league", base, "no league code known for this file name: give one with --league")
		}
	}
	league, err := leagueOf(code, "league", leagues)
	if err != nil {
		return nil, err
	}
	year, calendar := opts.Season, false
	if m := seasonDirRE.FindStringSubmatch(filepath.Base(filepath.Dir(name))); m != nil {
		calendar = m[2] == ""
		if year == 0 {
			year, _ = strconv.Atoi(m[1])
		}
	}
	cr := csv.NewReader(bytes.NewReader(body))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, invalidFile("not a footballcsv file: it is empty")
	}
	if err != nil {
		return nil, invalidFile("not a footballcsv file: line 1: %v", err)
	}
	at := map[string]int{}
	for i, h := range header {
		at[strings.TrimSpace(h)] = i
	}
	for _, c := range footballCSVColumns {
		if _, ok := at[c]; !ok {
			return nil, model.Invalidf("header", strings.Join(header, ","), "line 1: no %s column: not a footballcsv file (want the columns %s, and HT)",
				c, strings.Join(footballCSVColumns, ", "))
		}
	}
	ht, hasHT := at["HT"]
	if !hasHT {
		ht = -1
	}
	src := &source{path: name, format: footballCSVFormat}
	var rows []csvMatch
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, invalidFile("not a footballcsv file: %v", err)
		}
		line, _ := cr.FieldPos(0)
		if blankRow(row) {
			continue
		}
		pm, err := footballCSVRow(row, at["Date"], at["Team 1"], at["FT"], ht, at["Team 2"])
		pm.line = line
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: line, What: pm.home + " v " + pm.away, Err: err})
			continue
		}
		rows = append(rows, csvMatch{pm: pm})
	}
	if len(rows) > 0 {
		pf := seasonOf(name, league, year, rows, src)
		pf.calendarYear = calendar
		pf.fieldNames = map[string]string{"ht": "HT"}
		src.seasons = append(src.seasons, pf)
	}
	return src, nil
}

// footballCSVRow reads one row: finished when its full-time score is
// known, else to be played (or, in the past, without a result).
func footballCSVRow(row []string, date, home, ft, ht, away int) (parsedMatch, error) {
	pm := parsedMatch{home: field(row, home), away: field(row, away), stage: model.Regular, status: model.Scheduled}
	switch {
	case pm.home == "":
		return pm, model.Invalidf("Team 1", "", "a team name is missing")
	case pm.away == "":
		return pm, model.Invalidf("Team 2", "", "a team name is missing")
	}
	d, err := time.Parse("Mon Jan 2 2006", field(row, date))
	if err != nil {
		return pm, model.Invalidf("Date", field(row, date), "must be a date like Sat Aug 14 1993")
	}
	pm.kickoff = d
	switch s := field(row, ft); s {
	case "", "?":
	default:
		score, err := model.ParseScore("FT", s)
		if err != nil {
			return pm, err
		}
		pm.status, pm.result.FullTime = model.Finished, &score
	}
	switch s := field(row, ht); s {
	case "", "?":
	default:
		score, err := model.ParseScore("HT", s)
		if err != nil {
			pm.dropped = append(pm.dropped, droppedDetail{field: "HT", err: err})
			break
		}
		pm.result.HalfTime = &score
	}
	return pm, nil
}
