package model

import (
	"slices"
	"strconv"
	"strings"
)

// RoundStage is the stage of a fixture as football-data.org's v4 names
// it: the league's regular season, a league or group stage, or a
// qualifying or knock-out round. Our fixtures keep the round's name as
// their source gives it (Fixture.Round); StageOf reads it.
type RoundStage string

// Round stages, as v4 names them.
const (
	StageRegularSeason    RoundStage = "REGULAR_SEASON"
	StageLeague           RoundStage = "LEAGUE_STAGE"
	StageGroup            RoundStage = "GROUP_STAGE"
	StagePreliminary      RoundStage = "PRELIMINARY_ROUND"
	StageQualification    RoundStage = "QUALIFICATION"
	StagePlayoffRound     RoundStage = "PLAYOFF_ROUND"
	StagePlayoffs         RoundStage = "PLAYOFFS"
	StageLast64           RoundStage = "LAST_64"
	StageLast32           RoundStage = "LAST_32"
	StageLast16           RoundStage = "LAST_16"
	StageQuarterFinals    RoundStage = "QUARTER_FINALS"
	StageSemiFinals       RoundStage = "SEMI_FINALS"
	StageThirdPlace       RoundStage = "THIRD_PLACE"
	StageFinal            RoundStage = "FINAL"
	StageChampionship     RoundStage = "CHAMPIONSHIP"
	StageRelegation       RoundStage = "RELEGATION"
	stageRoundPrefix      RoundStage = "ROUND_"
	stageQualifyingPrefix RoundStage = "QUALIFICATION_ROUND_"
)

// HasMatchdays reports whether the stage's matches are numbered by
// matchday in v4: a league's, a league stage's and a group stage's are,
// and those of a league's championship and relegation rounds (a league
// of their own); knock-out and play-off rounds are not (upstream's
// matchday is null there).
func (s RoundStage) HasMatchdays() bool {
	switch s {
	case StageRegularSeason, StageLeague, StageGroup, StageChampionship, StageRelegation:
		return true
	}
	return false
}

// knockOutRounds is the one table of knock-out and qualifying round names
// and their stages, by the name's last part ("Finals, Round of 16" is
// read as "Round of 16"), lower case without spaces and hyphens. Every
// such name in the data files we import is here (the importer's test
// lists them all, file by file), with OpenLigaDB's DFB-Pokal names and
// engsoccerdata's MLS play-off rounds; numbered rounds ("Round 2",
// "2. Runde") are read by roundNumber.
var knockOutRounds = map[string]RoundStage{
	"final": StageFinal, "endspiel": StageFinal, "finale": StageFinal, "mls_final": StageFinal,
	"semifinal": StageSemiFinals, "semifinals": StageSemiFinals, "halbfinale": StageSemiFinals, "conf_final": StageSemiFinals,
	"quarterfinal": StageQuarterFinals, "quarterfinals": StageQuarterFinals, "viertelfinale": StageQuarterFinals, "conf_semi": StageQuarterFinals,
	"roundof16": StageLast16, "achtelfinale": StageLast16, "roundof32": StageLast32, "roundof64": StageLast64,
	"matchforthirdplace": StageThirdPlace, "thirdplacematch": StageThirdPlace, "thirdplaceplayoff": StageThirdPlace,
	"3.platz": StageThirdPlace, "spielumplatz3": StageThirdPlace,
	"preliminaryround": StagePreliminary, "firstround": StageRound(1),
	// A league's play-offs: extra rounds, placings and relegation ties.
	"playoffs": StagePlayoffs, "playoff": StagePlayoffs, "play_in": StagePlayoffs, "playinround1": StagePlayoffs,
	"playinround2": StagePlayoffs, "reclassification": StagePlayoffs, "eliminationfinal": StagePlayoffs,
	"direkterabstieg": StagePlayoffs, "5.platz": StagePlayoffs, "7.platz": StagePlayoffs, "9.platz": StagePlayoffs,
	"11.platz": StagePlayoffs, "13.platz": StagePlayoffs, "5.8.platzplayoffs": StagePlayoffs,
	"9.12.platzplayoffs": StagePlayoffs, "13.16.platzplayoffs": StagePlayoffs,
	// La Liga 1986-87's second phase, groups played after the season
	// (engsoccerdata), which count in no table of ours.
	"phase2": StagePlayoffs,
	// World Cup 1958's play-offs between the teams level in a group.
	"group1playoff": StagePlayoffs, "group2playoff": StagePlayoffs, "group3playoff": StagePlayoffs, "group4playoff": StagePlayoffs,
	// World Cup 1950's final round was a group of four.
	"finalround": StageGroup,
}

// phaseStages are the stages of the phases whose rounds are numbered
// ("League, Matchday 3", "Playoffs, Matchday 1"): a numbered round takes
// its phase's stage.
var phaseStages = map[string]RoundStage{
	"league": StageLeague, "group": StageGroup,
	"playoffs": StagePlayoffs, "playoff": StagePlayoffs, "playoffi": StagePlayoffs, "eclplayoffs": StagePlayoffs,
	"europe": StagePlayoffs, "championship": StageChampionship, "relegation": StageRelegation,
}

// qualifyingPhases are phases whose rounds qualify for the competition
// proper: "Qualifying, Round 2" is QUALIFICATION_ROUND_2, "Qualification,
// Playoffs" PLAYOFF_ROUND, any other of their rounds QUALIFICATION (the
// World Cup's qualifying play-offs: "UEFA Second Round Play-offs, Path A,
// Final").
var qualifyingPhases = map[string]bool{
	"qualifying": true, "qualification": true, "uefasecondroundplayoffs": true, "interconfederationplayoffs": true,
}

// RoundStages are every stage v4 names (spec section 7's lookup table, in
// its order, with the PLAYOFF_ROUND upstream sends without listing it and
// the LEAGUE_STAGE of today's Champions League): the stage filter's
// values, and the stages a round may carry as its name (a
// football-data.org feed's).
var RoundStages = []RoundStage{StageFinal, StageThirdPlace, StageSemiFinals, StageQuarterFinals, StageLast16, StageLast32, StageLast64,
	StageRound(4), StageRound(3), StageRound(2), StageRound(1), StageGroup, StageLeague, StagePreliminary, StageQualification,
	stageQualifyingPrefix + "1", stageQualifyingPrefix + "2", stageQualifyingPrefix + "3", StagePlayoffRound, StagePlayoffRound + "_1",
	StagePlayoffRound + "_2", StagePlayoffs, StageRegularSeason, "CLAUSURA", "APERTURA", StageChampionship, StageRelegation, StageRelegation + "_ROUND"}

// StageRound is the stage of the n-th round of a cup: ROUND_1 to ROUND_4
// (v4 names no other).
func StageRound(n int) RoundStage { return stageRoundPrefix + RoundStage(strconv.Itoa(n)) }

// StageOf is the stage of a fixture of a competition of kind in the round
// named round; knockOut is whether the fixture is a play-off or knock-out
// one (Stage Playoff), which every fixture of a cup is.
//
// A fixture that counts in a table is in its league's regular season, or
// its tournament's group stage; the phases "League" and "Group" make it a
// league or group stage in any competition ("League, Matchday 1" of the
// Champions League since 2024). A knock-out fixture's stage is its round
// name's in the table above, read by the name's last part, which may be
// numbered: "Round N" and "N. Runde" are ROUND_N, a numbered round of a
// phase takes the phase's stage, and any round of a qualifying phase is a
// qualifying one. ok is false for a name the table does not know: such a
// round is PLAYOFFS, whatever words its name has, and the importer warns
// of it.
func StageOf(round string, knockOut bool, kind CompetitionType) (stage RoundStage, ok bool) {
	if kind != TypeCup && !knockOut {
		return regularStage(round, kind), true
	}
	if s := RoundStage(strings.TrimSpace(round)); slices.Contains(RoundStages, s) {
		return s, true
	}
	parts := strings.Split(round, ",")
	for i := range parts {
		parts[i] = squash(parts[i])
	}
	if len(parts) > 1 && parts[len(parts)-1] == "replays" {
		parts = parts[:len(parts)-1]
	}
	name, phases := parts[len(parts)-1], parts[:len(parts)-1]
	for _, p := range phases {
		if qualifyingPhases[p] {
			return qualifyingStage(name), true
		}
	}
	if name == "" && len(phases) == 0 {
		return StagePlayoffs, true
	}
	if s, ok := knockOutRounds[name]; ok {
		return s, true
	}
	if n, matchday := roundNumber(name); n > 0 {
		if !matchday && n <= 4 {
			return StageRound(n), true
		}
		if len(phases) > 0 {
			if s, ok := phaseStages[phases[len(phases)-1]]; ok {
				return s, true
			}
		}
	}
	return StagePlayoffs, false
}

// regularStage is the stage of a fixture that counts in a table: its
// phase's when that is a league or group stage (or its round is named so),
// else its league's regular season or its tournament's group stage. Most
// rounds have no phase and are read without allocating.
func regularStage(round string, kind CompetitionType) RoundStage {
	if s := RoundStage(round); s == StageLeague || s == StageGroup {
		return s // v4's own name (a football-data.org feed's)
	}
	for rest := round; ; {
		phase, after, found := strings.Cut(rest, ",")
		if !found {
			break
		}
		if s := phaseStages[squash(phase)]; s == StageLeague || s == StageGroup {
			return s
		}
		rest = after
	}
	if kind == TypeTournament {
		return StageGroup
	}
	return StageRegularSeason
}

// qualifyingStage is the stage of round name of a qualifying phase.
func qualifyingStage(name string) RoundStage {
	if n, matchday := roundNumber(name); n >= 1 && n <= 3 && !matchday {
		return stageQualifyingPrefix + RoundStage(strconv.Itoa(n))
	}
	if name == "playoffs" || name == "playoff" {
		return StagePlayoffRound
	}
	return StageQualification
}

// roundNumber reads a numbered round's name as squash leaves it: "round3",
// "3.round", "3.runde" are round 3; "matchday3", "spieltag3",
// "3.spieltag" matchday 3 (matchday true). 0 for any other name.
func roundNumber(name string) (n int, matchday bool) {
	for _, w := range []struct {
		word     string
		matchday bool
	}{{"round", false}, {"runde", false}, {"matchday", true}, {"spieltag", true}} {
		digits, ok := strings.CutPrefix(name, w.word)
		if !ok {
			digits, ok = strings.CutSuffix(name, "."+w.word)
		}
		if n, err := strconv.Atoi(digits); ok && err == nil && n > 0 {
			return n, w.matchday
		}
	}
	return 0, false
}

// squash is a round name's part as the table keys it: trimmed, lower case,
// without spaces and hyphens ("Semi-finals" and "Semifinals" alike).
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}
