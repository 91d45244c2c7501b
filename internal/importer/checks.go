package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// Warning is something a file says that is probably wrong but not
// impossible: the import goes on (unless --strict) and says so.
type Warning struct {
	File string
	Kind string // what is suspicious, the group it is printed in
	What string // this case
}

func (w Warning) String() string { return w.File + ": " + w.What }

// Kinds of warnings.
const (
	warnSimilarNames = "a team name seen in a few matches beside a similar one: one club under two names? (map it with --aliases or `ingest team alias`)"
	warnIdentical    = "identical fixture lines: imported once"
	warnOutOfSeason  = "matches dated outside the season"
	warnScorer       = "a scorer's name that fits two persons of the team: recorded as a person of its own"
	warnTwiceADay    = "a team playing twice on one day"
	warnNoResult     = "past fixtures without a result (postponed, abandoned, or missing from the file?)"
	warnRoundCount   = "teams with unequal numbers of regular matches: the rounds do not fit the teams"
	warnRoundStage   = "round names the stage table does not know: served as PLAYOFFS (add them to model.StageOf's table)"
)

// checkSeason looks at one season as a parser read it, drops the lines
// that repeat another exactly, and returns what looks wrong. now is when
// results are expected up to.
func checkSeason(pf *parsedFile, now time.Time) []Warning {
	var ws []Warning
	warn := func(kind, format string, args ...any) {
		ws = append(ws, Warning{File: pf.path, Kind: kind, What: fmt.Sprintf("%s %d: ", pf.league.Code, pf.year) + fmt.Sprintf(format, args...)})
	}
	pf.matches = dropIdentical(pf.matches, func(pm parsedMatch) {
		warn(warnIdentical, "line %d repeats %s v %s (%s, %s)", pm.line, pm.home, pm.away, pm.round, pm.kickoff.Format(time.DateOnly))
	})
	norm := normalizer{}
	checkNames(pf, norm, warn)
	checkWindow(pf, warn)
	checkTwiceADay(pf, warn)
	checkResults(pf, now, warn)
	checkRoundStages(pf, warn)
	if pf.kind == model.TypeLeague {
		if lo, hi := regularRange(pf.matches, norm); lo != hi {
			warn(warnRoundCount, "between %d and %d regular matches per team over %d matchdays", lo, hi, pf.matchdays)
		}
	}
	return ws
}

// checkRoundStages warns once of each round name whose v4 stage the one
// table does not know: the round is imported, and served by its fallback.
func checkRoundStages(pf *parsedFile, warn warnFunc) {
	seen := map[string]bool{}
	for _, pm := range pf.matches {
		if seen[pm.round] {
			continue
		}
		seen[pm.round] = true
		if stage, known := model.StageOf(pm.round, pm.stage == model.Playoff, pf.kind); !known {
			warn(warnRoundStage, "round %q (line %d), served as %s", pm.round, pm.line, stage)
		}
	}
}

// warnFunc adds a warning of kind about the season being checked.
type warnFunc func(kind, format string, args ...any)

// checkNames warns of two spellings that look like one team. Spellings
// that normalise alike are one team already.
func checkNames(pf *parsedFile, norm normalizer, warn warnFunc) {
	counts, spelling := map[string]int{}, map[string]string{}
	for _, pm := range pf.matches {
		for _, name := range []string{pm.home, pm.away} {
			key := norm.of(name)
			counts[key]++
			if _, ok := spelling[key]; !ok {
				spelling[key] = name
			}
		}
	}
	for _, pair := range similarNames(counts, spelling) {
		warn(warnSimilarNames, "%q in %d matches, %q in %d", spelling[pair[0]], counts[pair[0]], spelling[pair[1]], counts[pair[1]])
	}
}

// checkWindow warns of matches outside the season's dates.
func checkWindow(pf *parsedFile, warn warnFunc) {
	first, last := seasonWindow(pf.year, pf.calendarYear)
	var outside []parsedMatch
	for _, pm := range pf.matches {
		if pm.kickoff.Before(first) || !pm.kickoff.Before(last) {
			outside = append(outside, pm)
		}
	}
	if len(outside) > 0 {
		warn(warnOutOfSeason, "%d matches between %s and %s, outside %s–%s (rounds %s)", len(outside),
			outside[0].kickoff.Format(time.DateOnly), outside[len(outside)-1].kickoff.Format(time.DateOnly),
			first.Format(time.DateOnly), last.AddDate(0, 0, -1).Format(time.DateOnly), roundsOf(outside))
	}
}

// checkTwiceADay warns of a team with two matches on one day.
func checkTwiceADay(pf *parsedFile, warn warnFunc) {
	// A team's days, each with the match it last played on it (an index:
	// this runs over every match of every file).
	type teamDay struct {
		team              string
		year, month, date int
	}
	days := make(map[teamDay]int, 2*len(pf.matches))
	for i, pm := range pf.matches {
		if pm.status == model.Postponed || pm.status == model.Canceled {
			continue
		}
		y, m, d := pm.kickoff.Date()
		for _, team := range []string{pm.home, pm.away} {
			key := teamDay{team, y, int(m), d}
			if j, ok := days[key]; ok && !placeholderRE.MatchString(team) {
				other := &pf.matches[j]
				warn(warnTwiceADay, "%s on %s: line %d (%s v %s) and line %d (%s v %s)", team, pm.kickoff.Format(time.DateOnly),
					other.line, other.home, other.away, pm.line, pm.home, pm.away)
			}
			days[key] = i
		}
	}
}

// checkResults warns of matches long past without a result (none when
// now is zero).
func checkResults(pf *parsedFile, now time.Time, warn warnFunc) {
	due := now.AddDate(0, 0, -resultGraceDays)
	var missing []parsedMatch
	for _, pm := range pf.matches {
		if !now.IsZero() && (pm.status == model.Timed || pm.status == model.Scheduled) && pm.kickoff.Before(due) {
			missing = append(missing, pm)
		}
	}
	if len(missing) > 0 {
		warn(warnNoResult, "%d matches before %s have none: %s", len(missing), due.Format(time.DateOnly), examplesOf(missing))
	}
}

// resultGraceDays is how long a match may go without its result before it
// is called missing: results come in over a weekend.
const resultGraceDays = 3

// dropIdentical keeps the first of the matches that repeat another line to
// the letter (round, date, teams, result), calling dropped for the others.
func dropIdentical(ms []parsedMatch, dropped func(parsedMatch)) []parsedMatch {
	type line struct {
		round, home, away string
		kickoff           int64
		status            model.Status
		result            [4][3]int
	}
	seen := make(map[line]bool, len(ms))
	kept := ms[:0]
	for _, pm := range ms {
		key := line{pm.round, pm.home, pm.away, pm.kickoff.Unix(), pm.status, resultKey(pm.result)}
		if seen[key] && pm.err == nil {
			dropped(pm)
			continue
		}
		seen[key] = true
		kept = append(kept, pm)
	}
	return kept
}

// resultKey is a result as a comparable value: each score's presence and
// goals.
func resultKey(r model.Result) [4][3]int {
	var k [4][3]int
	for i, s := range []*model.Score{r.FullTime, r.HalfTime, r.ExtraTime, r.Penalties} {
		if s != nil {
			k[i] = [3]int{1, s.Home, s.Away}
		}
	}
	return k
}

// similarNames pairs a team seen in few matches with one seen in many
// whose name's words its own begin ("Bolton" and "Bolton Wanderers", "AFC"
// and "AFC Wimbledon"): most likely one club under two spellings. counts
// and spelling are by normalised name.
func similarNames(counts map[string]int, spelling map[string]string) [][2]string {
	var out [][2]string
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, short := range names {
		for _, long := range names {
			if short == long || counts[short]*4 > counts[long] || placeholderRE.MatchString(short) {
				continue
			}
			if s, l := strings.Fields(strings.ToLower(spelling[short])), strings.Fields(strings.ToLower(spelling[long])); len(s) < len(l) && slices.Equal(s, l[:len(s)]) {
				out = append(out, [2]string{short, long})
			}
		}
	}
	return out
}

// seasonWindow is when a season's matches are played: from mid-June of its
// start year to mid-July of the next (qualifiers and play-offs included),
// or within the year for a calendar-year season.
func seasonWindow(year int, calendar bool) (first, end time.Time) {
	if calendar {
		return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(year, 6, 15, 0, 0, 0, 0, time.UTC), time.Date(year+1, 7, 15, 0, 0, 0, 0, time.UTC)
}

// regularRange is the fewest and most regular matches a team plays.
func regularRange(ms []parsedMatch, norm normalizer) (lo, hi int) {
	n := map[string]int{}
	for _, pm := range ms {
		if pm.stage == model.Regular {
			n[norm.of(pm.home)]++
			n[norm.of(pm.away)]++
		}
	}
	first := true
	for _, c := range n {
		if first || c < lo {
			lo = c
		}
		if first || c > hi {
			hi = c
		}
		first = false
	}
	return lo, hi
}

func roundsOf(ms []parsedMatch) string {
	var rounds []string
	for _, pm := range ms {
		if !slices.Contains(rounds, pm.round) {
			rounds = append(rounds, pm.round)
		}
	}
	if len(rounds) > 3 {
		return fmt.Sprintf("%s … %s, %d in all", rounds[0], rounds[len(rounds)-1], len(rounds))
	}
	return strings.Join(rounds, ", ")
}

func examplesOf(ms []parsedMatch) string {
	var ex []string
	for _, pm := range ms[:min(len(ms), 3)] {
		ex = append(ex, fmt.Sprintf("line %d %s v %s (%s)", pm.line, pm.home, pm.away, pm.kickoff.Format(time.DateOnly)))
	}
	if len(ms) > 3 {
		ex = append(ex, "…")
	}
	return strings.Join(ex, "; ")
}

// normalizer remembers the normalised spellings of team names: a season
// names each team in dozens of matches, and normalising allocates.
type normalizer map[string]string

func (n normalizer) of(name string) string {
	key, ok := n[name]
	if !ok {
		key = model.NormalizeTeamName(name)
		n[name] = key
	}
	return key
}
