package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestStatusTransitions(t *testing.T) {
	tests := []struct {
		from, to Status
		ok       bool
		path     []Status
	}{
		{Scheduled, Timed, true, []Status{Timed}},
		{Timed, InPlay, true, []Status{InPlay}},
		{InPlay, Finished, true, []Status{Finished}},
		{Timed, Finished, false, []Status{InPlay, Finished}},
		{Postponed, Finished, false, []Status{Timed, InPlay, Finished}},
		{Timed, Postponed, true, []Status{Postponed}},
		{Postponed, Canceled, true, []Status{Canceled}},
		{Finished, Finished, true, []Status{Finished}},
		{Finished, InPlay, false, nil},
		{Canceled, Timed, false, nil},
		{InPlay, Postponed, false, nil},
	}
	for _, tt := range tests {
		err := tt.from.CheckTransition(tt.to)
		if (err == nil) != tt.ok {
			t.Errorf("%s→%s: direct error %v, want ok=%v", tt.from, tt.to, err, tt.ok)
		}
		path, err := tt.from.Path(tt.to)
		if !slices.Equal(path, tt.path) {
			t.Errorf("%s→%s: path %v, want %v", tt.from, tt.to, path, tt.path)
		}
		if tt.path == nil && (err == nil || ErrorCode(err) != Invalid || !strings.Contains(err.Error(), "allowed")) {
			t.Errorf("%s→%s: refusal %v should name the allowed moves", tt.from, tt.to, err)
		}
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		in   string
		want Score
		ok   bool
	}{
		{"2-1", Score{2, 1}, true}, {"0:0", Score{0, 0}, true}, {"10-9", Score{10, 9}, true},
		{"2-", Score{}, false}, {"a-1", Score{}, false}, {"2-1-0", Score{}, false}, {"-1-2", Score{}, false},
		{"2 - 1", Score{}, false}, {"100-0", Score{}, false}, {"", Score{}, false},
	}
	for _, tt := range tests {
		got, err := ParseScore("score", tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseScore(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestDefaultRules(t *testing.T) {
	tests := []struct {
		code  LeagueCode
		year  int
		win   int
		first TieBreaker
	}{
		{"PL", 2025, 3, GoalDifference},
		{"PL", 1980, 2, GoalDifference},
		{"EL2", 1985, 3, GoalDifference},
		{"SA", 2025, 3, HeadToHeadPoints},
		{"PD", 1990, 2, HeadToHeadPoints},
		{"BL1", 1965, 2, GoalQuotient},
		{"BL1", 1971, 2, GoalDifference},
		{"CL", 2020, 3, HeadToHeadPoints},
		{"XYZ", 2020, 3, GoalDifference},
	}
	for _, tt := range tests {
		r := DefaultRules(tt.code, tt.year)
		if r.PointsWin != tt.win || r.PointsDraw != 1 || r.TieBreakers[0] != tt.first {
			t.Errorf("DefaultRules(%s, %d) = %+v", tt.code, tt.year, r)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("DefaultRules(%s, %d) invalid: %v", tt.code, tt.year, err)
		}
	}
}

func TestFixtureValidate(t *testing.T) {
	good := func() Fixture {
		return Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2, Status: Timed}
	}
	tests := []struct {
		name  string
		edit  func(*Fixture)
		field string
	}{
		{"valid", func(*Fixture) {}, ""},
		{"matchday 0", func(f *Fixture) { f.Matchday = 0 }, "matchday"},
		{"same teams", func(f *Fixture) { f.AwayTeamID = 1 }, "awayTeam"},
		{"finished without score", func(f *Fixture) { f.Status = Finished }, "result"},
		{"negative goals", func(f *Fixture) { f.Status = Finished; f.Result.FullTime = &Score{-1, 0} }, "score"},
		{"half time without full time", func(f *Fixture) { f.Result.HalfTime = &Score{1, 0} }, "score"},
		{"id beyond 32 bits", func(f *Fixture) { f.ID = MaxID + 1 }, "id"},
		{"largest id", func(f *Fixture) { f.ID = MaxID }, ""},
		{"competition beyond 32 bits", func(f *Fixture) { f.CompetitionID = 1 << 31 }, "competition"},
		{"team beyond 32 bits", func(f *Fixture) { f.HomeTeamID = 1 << 32 }, "homeTeam"},
		{"round with a NUL", func(f *Fixture) { f.Round = "Matchday\x001" }, "round"},
		{"leg 3", func(f *Fixture) { f.Leg = 3 }, "leg"},
		{"awarded while timed", func(f *Fixture) { f.Awarded = Home }, "awarded"},
		{"unknown stage", func(f *Fixture) { f.Stage = "FRIENDLY" }, "stage"},
		{"in play with unknown team", func(f *Fixture) { f.Status = InPlay; f.AwayTeamID = 0 }, "status"},
		{"odds below 1", func(f *Fixture) { f.Odds = &Odds{0.5, 3, 4} }, "odds"},
		{"odds NaN", func(f *Fixture) { f.Odds = &Odds{math.NaN(), 1, 1} }, "odds"},
		{"odds NaN away", func(f *Fixture) { f.Odds = &Odds{2, 3, math.NaN()} }, "odds"},
		{"odds infinite", func(f *Fixture) { f.Odds = &Odds{2, math.Inf(1), 4} }, "odds"},
		{"odds minus infinity", func(f *Fixture) { f.Odds = &Odds{math.Inf(-1), 3, 4} }, "odds"},
		{"odds at the bounds", func(f *Fixture) { f.Odds = &Odds{1, 10000, 1.01} }, ""},
		{"awarded 0-0 to the away side", func(f *Fixture) { f.Status = Finished; f.Result.FullTime = &Score{}; f.Awarded = Away }, ""},
	}
	for _, tt := range tests {
		f := good()
		tt.edit(&f)
		err := f.Validate()
		var field string
		if e, ok := err.(*Error); ok {
			field = e.Field
		} else if err != nil {
			t.Errorf("%s: error %v is not a *model.Error", tt.name, err)
		}
		if field != tt.field {
			t.Errorf("%s: error %v, want one about %q", tt.name, err, tt.field)
		}
	}
}

// TestResultsThatCannotHappen: every result rule refuses what breaks it,
// naming the score, and lets through what real matches produce.
func TestResultsThatCannotHappen(t *testing.T) {
	sc := func(h, a int) *Score { return &Score{h, a} }
	tests := []struct {
		name   string
		stage  Stage
		leg    int
		result Result
		field  string // "" when valid
		rule   string
	}{
		{"half time above full time", Regular, 0, Result{FullTime: sc(3, 2), HalfTime: sc(4, 0)}, "half-time", "cannot exceed"},
		{"half time equal to full time", Regular, 0, Result{FullTime: sc(3, 2), HalfTime: sc(3, 2)}, "", ""},
		{"extra time below full time", Playoff, 0, Result{FullTime: sc(2, 1), ExtraTime: sc(1, 1)}, "extra-time", "cannot be below"},
		{"extra time after a win", Playoff, 0, Result{FullTime: sc(2, 1), ExtraTime: sc(3, 1)}, "extra-time", "follows a level full time"},
		{"extra time in a second leg", Playoff, 2, Result{FullTime: sc(2, 1), ExtraTime: sc(3, 1)}, "", ""},
		{"extra time in a league", Regular, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(2, 1)}, "extra-time", "only knock-out"},
		{"penalties in a league", Regular, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2), Penalties: sc(4, 3)}, "extra-time", "only knock-out"},
		{"penalties alone in a league", Regular, 0, Result{FullTime: sc(1, 1), Penalties: sc(4, 3)}, "penalties", "only knock-out"},
		{"penalties after a level extra time", Playoff, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(2, 2), Penalties: sc(4, 3)}, "", ""},
		{"penalties after a won extra time", Playoff, 0, Result{FullTime: sc(1, 1), ExtraTime: sc(2, 1), Penalties: sc(4, 3)}, "penalties", "follows a level match"},
		{"penalties straight after full time", Playoff, 0, Result{FullTime: sc(0, 0), Penalties: sc(5, 4)}, "", ""},
		{"level shoot-out", Playoff, 0, Result{FullTime: sc(0, 0), Penalties: sc(4, 4)}, "penalties", "has a winner"},
		{"shoot-out in a second leg", Playoff, 2, Result{FullTime: sc(2, 1), Penalties: sc(2, 4)}, "", ""},
	}
	league := &Competition{ID: 1, Caption: "PL", League: "PL", Year: 2025, Type: TypeLeague, NumberOfMatchdays: 38}
	for _, tt := range tests {
		f := Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: tt.stage, Leg: tt.leg, Kickoff: time.Unix(0, 0),
			HomeTeamID: 1, AwayTeamID: 2, Status: Finished, Result: tt.result}
		err := CheckFixture(league, &f, nil)
		var e *Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &e) || e.Field != tt.field || e.Code != Invalid || !strings.Contains(e.Message, tt.rule)):
			t.Errorf("%s: error %v, want an invalid %s naming the rule %q", tt.name, err, tt.field, tt.rule)
		}
	}
	// The group stage of the 1954 World Cup went to extra time.
	wc := &Competition{ID: 1, Caption: "WC 1954", League: "WC", Year: 1954, Type: TypeTournament}
	wc.SetDefaults()
	level := Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Group: "A", Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2,
		Status: Finished, Result: Result{FullTime: sc(1, 1), ExtraTime: sc(1, 1)}}
	if err := CheckFixture(wc, &level, nil); err != nil {
		t.Errorf("World Cup 1954 group game after extra time: %v", err)
	}
	// An awarded winner needs no goals.
	f := Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: Regular, Kickoff: time.Unix(0, 0), HomeTeamID: 1, AwayTeamID: 2, Status: Finished, Awarded: Away}
	if err := f.Validate(); err != nil {
		t.Errorf("awarded without goals: %v", err)
	}
}

// TestTextAndURLBounds: text fields are bounded and free of control and
// bidirectional formatting characters; URLs are absolute http(s).
func TestTextAndURLBounds(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		team  Team
		field string
	}{
		{"plain", Team{ID: 1, Name: "Arsenal FC", CrestURL: str("https://example.org/a.svg")}, ""},
		{"accents and scripts", Team{ID: 1, Name: "Beşiktaş JK / 北京国安"}, ""},
		{"100,001 characters", Team{ID: 1, Name: strings.Repeat("a", 100_001)}, "name"},
		{"NUL", Team{ID: 1, Name: "Arse\x00nal"}, "name"},
		{"right-to-left override", Team{ID: 1, Name: "Arsenal\u202Elanesra"}, "name"},
		{"not UTF-8", Team{ID: 1, Name: "Arsenal\xff"}, "name"},
		{"blank", Team{ID: 1, Name: "   "}, "name"},
		{"crest not a URL", Team{ID: 1, Name: "Arsenal", CrestURL: str("notaurl")}, "crestUrl"},
		{"crest javascript", Team{ID: 1, Name: "Arsenal", CrestURL: str("javascript:alert(1)")}, "crestUrl"},
		{"crest relative", Team{ID: 1, Name: "Arsenal", CrestURL: str("/crest.svg")}, "crestUrl"},
		{"code with a space", Team{ID: 1, Name: "Arsenal", Code: str("A R")}, "code"},
		{"id beyond 32 bits", Team{ID: 2147483648, Name: "Arsenal"}, "id"},
	}
	for _, tt := range tests {
		err := tt.team.Validate()
		var e *Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &e) || e.Field != tt.field || e.Code != Invalid):
			t.Errorf("%s: error %v, want an invalid %s", tt.name, err, tt.field)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%s: error of %d bytes: one short line is wanted", tt.name, len(err.Error()))
		}
	}
	c := Competition{ID: MaxID + 1, Caption: "PL", League: "PL", Year: 2025, Type: TypeLeague, Rules: DefaultRules("PL", 2025)}
	if err := c.Validate(); ErrorCode(err) != Invalid || !strings.Contains(err.Error(), "2147483648") {
		t.Errorf("competition id 2^31: %v", err)
	}
	if err := c.ValidateDraft(); err != nil {
		t.Errorf("a draft has no id yet: %v", err)
	}
}

func TestOutcomeFollowsTheAward(t *testing.T) {
	f := Fixture{Status: Finished, Result: Result{FullTime: &Score{0, 0}}, Awarded: Away}
	if side, ok := f.Outcome(); !ok || side != Away {
		t.Errorf("awarded fixture outcome %s %v", side, ok)
	}
	f.Awarded = ""
	if side, _ := f.Outcome(); side != Draw {
		t.Errorf("0-0 outcome %s", side)
	}
	f.Status = Postponed
	if _, ok := f.Outcome(); ok {
		t.Error("a postponed fixture has an outcome")
	}
}

func TestNormalizeTeamName(t *testing.T) {
	same := [][]string{
		{"Manchester United FC", "Manchester United", "manchester  united"},
		{"AFC Bournemouth", "Bournemouth"},
		{"Brighton & Hove Albion FC", "Brighton & Hove Albion"},
		{"1. FC Köln", "1 FC Köln"},
		// Look-alikes: invisible characters are nothing, case and
		// white space are no difference.
		{"Arsenal FC", "Arse\u200bnal FC", "ARSENAL\u00a0\u00a0fc", "Arsenal\u2060 FC", "\ufeffArsenal FC", "Ar\u00adsenal",
			"Arsenal\u3164 FC", "Arse\u115fnal", "Arse\u1160nal", "Arse\uffa0nal", "Arse\u180enal", "Arsenal\ufe0f FC",
			"Arse\U000e0100nal", "Arse\U000e0041nal", "Arse\u200d\u200cnal", "Arse\u034fnal", "Arsenal\u202e FC"},
	}
	for _, group := range same {
		for _, n := range group[1:] {
			if NormalizeTeamName(n) != NormalizeTeamName(group[0]) {
				t.Errorf("%q and %q normalise differently: %q, %q", n, group[0], NormalizeTeamName(n), NormalizeTeamName(group[0]))
			}
		}
	}
	if NormalizeTeamName("Manchester City") == NormalizeTeamName("Manchester United") {
		t.Error("two clubs share a key")
	}
	if NormalizeTeamName("FC") != "fc" {
		t.Errorf("a name made only of an affix keeps it: %q", NormalizeTeamName("FC"))
	}
}

// TestInvisibleCharactersAreRefused: every name and label refuses the
// characters that show nothing (invisible), and so let a name pass for
// another; text in any script passes.
func TestInvisibleCharactersAreRefused(t *testing.T) {
	invisibles := []rune{0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E, 0x115F, 0x1160, 0x3164, 0xFFA0,
		0xFE0F, 0xE0100, 0xE0041, 0x034F, 0x2062, 0x202E, 0x2066, 0x061C}
	kinds := []struct {
		field    string
		validate func(name string) error
	}{
		{"name", func(n string) error { return (&Team{ID: 1, Name: n}).Validate() }},
		{"shortName", func(n string) error { return (&Team{ID: 1, Name: "Arsenal FC", ShortName: &n}).Validate() }},
		{"name", func(n string) error { return (&TeamName{Name: n, TeamID: 1}).Validate() }},
		{"caption", func(n string) error {
			return (&Competition{ID: 1, Caption: n, League: "PL", Year: 2025, Type: TypeLeague, Tier: TierAnonymous, Rules: DefaultRules("PL", 2025)}).Validate()
		}},
		{"player name", func(n string) error { return (&Player{ID: 1, Name: n}).Validate() }},
		{"name", func(n string) error { return (&League{Code: "ZZ", Name: n, Zone: "UTC"}).Validate() }},
		{"round", func(n string) error {
			f := Fixture{ID: 1, CompetitionID: 1, Matchday: 1, Stage: Regular, Kickoff: time.Unix(0, 0), Status: Timed, Round: n}
			return f.Validate()
		}},
	}
	for _, k := range kinds {
		if err := k.validate("Beşiktaş JK / 北京国安 / Παναθηναϊκός / 'Ajax' & Co."); err != nil {
			t.Errorf("%s: visible text refused: %v", k.field, err)
		}
		for _, r := range invisibles {
			name := "Arse" + string(r) + "nal"
			err := k.validate(name)
			var e *Error
			if !errors.As(err, &e) || e.Code != Invalid || e.Field != k.field || !strings.Contains(e.Message, fmt.Sprintf("%U", r)) {
				t.Errorf("%s %+q: error %v, want an invalid %s naming %U", k.field, name, err, k.field, r)
			}
		}
	}
}

// TestInvisibleIsUnicodes: invisible's shortcut below U+0600 agrees with
// Unicode's tables for every character.
func TestInvisibleIsUnicodes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if want := unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point); invisible(r) != want {
			t.Errorf("invisible(%U) = %v, want %v", r, !want, want)
		}
	}
}

func TestTokens(t *testing.T) {
	tok, err := NewToken()
	if err != nil || len(tok) != 32 || !ValidToken(tok) {
		t.Fatalf("token %q, %v", tok, err)
	}
	other, _ := NewToken()
	if other == tok {
		t.Fatal("two tokens alike")
	}
	c := Client{Name: "acme", Tier: TierRegistered, PerMinute: 50, TokenHash: HashToken(tok)}
	if err := c.Validate(); err != nil || strings.Contains(c.TokenHash, tok) {
		t.Fatalf("client %+v: %v", c, err)
	}
}

func TestValidToken(t *testing.T) {
	for tok, want := range map[string]bool{"abc123": true, "z9": true, "": false, "abc0": false, "ABC": false, "ab-c": false, "äbc": false} {
		if got := ValidToken(tok); got != want {
			t.Errorf("ValidToken(%q) = %v", tok, got)
		}
	}
}

func TestTierAllows(t *testing.T) {
	if !TierDonating.Allows(TierRegistered) || TierAnonymous.Allows(TierRegistered) || !TierRegistered.Allows(TierAnonymous) || TierRegistered.Allows(TierDonating) {
		t.Error("tier order wrong")
	}
}

func TestHistoricIDs(t *testing.T) {
	for _, tt := range []struct {
		league LeagueCode
		year   int
		id     int
	}{{"PL", 2017, 445}, {"PL", 2015, 398}, {"WC", 2018, 467}, {"BSA", 2018, 468}} {
		if id, ok := HistoricCompetitionID(tt.league, tt.year); !ok || id != tt.id {
			t.Errorf("%s %d: %d %v, want %d", tt.league, tt.year, id, ok, tt.id)
		}
	}
	if _, ok := HistoricCompetitionID("PL", 2025); ok {
		t.Error("PL 2025 has a historic id")
	}
	for name, want := range map[string]int{"Arsenal": 57, "Arsenal FC": 57, "Manchester United FC": 66, "Bayern München": 5, "Germany": 759,
		"Espanyol Barcelona": 80, "Deportivo La Coruña": 560, "South Korea": 772, "Colchester United FC": 365} {
		if id, ok := HistoricTeamID(name); !ok || id != want {
			t.Errorf("%s: %d %v, want %d", name, id, ok, want)
		}
	}
	if first, last := ReservedCompetitionIDs(); first != 341 || last != 468 {
		t.Errorf("reserved competition ids %d to %d, want 341 to 468", first, last)
	}
	if first, last := ReservedTeamIDs(); first != 1 || last != 1836 {
		t.Errorf("reserved team ids %d to %d, want 1 to 1836 (Panama, the highest known)", first, last)
	}
	if _, ok := HistoricTeamID("to be decided"); ok {
		t.Error("the placeholder is a team")
	}
}

// TestParseHistoric: the table's rows, and each way a row can be wrong,
// named in the error.
func TestParseHistoric(t *testing.T) {
	const head = "kind,id,key,name\n"
	tests := []struct {
		name, rows string
		wantErr    string
		teams      map[string]int
		lastTeam   int
	}{
		{"spellings of one club", "team,80,,RCD Espanyol|Espanyol Barcelona|espanyol\n",
			"", map[string]int{"RCD Espanyol": 80, "Espanyol Barcelona": 80, "ESPANYOL": 80}, 80},
		{"a row reserving an id only", "team,57,,Arsenal FC\nteam,1070,,\n", "", map[string]int{"Arsenal": 57}, 1070},
		{"one spelling, two ids", "team,510,,Ajaccio AC\nteam,555,,ajaccio\n", `spelling "ajaccio" names teams 510 and 555`, nil, 0},
		{"an empty spelling", "team,80,,RCD Espanyol||Espanyol\n", `team 80: empty spelling`, nil, 0},
		{"a key for a team", "team,80,PD,RCD Espanyol\n", "the key column is empty for teams", nil, 0},
		{"no id", "team,x,,RCD Espanyol\n", "bad row", nil, 0},
		{"id 0", "team,0,,RCD Espanyol\n", "bad row", nil, 0},
		{"unknown kind", "player,80,,Ronaldo\n", `unknown kind "player"`, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := parseHistoric(head + tt.rows)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.teams {
				if got := h.teams[NormalizeTeamName(name)]; got != want {
					t.Errorf("%s: %d, want %d", name, got, want)
				}
			}
			if h.lastTeam != tt.lastTeam {
				t.Errorf("last team %d, want %d", h.lastTeam, tt.lastTeam)
			}
		})
	}
}

// TestPlayerDates: each bad date is named, and a player with two always
// gets the same error (the first in the order of the fields).
func TestPlayerDates(t *testing.T) {
	date := func(s string) *Date { d := Date(s); return &d }
	for _, tc := range []struct {
		name         string
		birth, until *Date
		want         string // the error, "" for none
	}{
		{"none", nil, nil, ""},
		{"both valid", date("1990-02-28"), date("2027-06-30"), ""},
		{"bad birth", date("1990-02-30"), date("2027-06-30"), `dateOfBirth "1990-02-30": must be a date YYYY-MM-DD`},
		{"bad contract", date("1990-02-28"), date("30/06/2027"), `contractUntil "30/06/2027": must be a date YYYY-MM-DD`},
		{"both bad", date("1990-13-01"), date("soon"), `dateOfBirth "1990-13-01": must be a date YYYY-MM-DD`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Player{Name: "Ada Striker", Position: "Centre-Forward", DateOfBirth: tc.birth, ContractUntil: tc.until}
			// A map's order would change between calls: ask often.
			for range 64 {
				err := p.ValidateDraft()
				if got := fmt.Sprint(err); (err == nil) != (tc.want == "") || (err != nil && got != tc.want) {
					t.Fatalf("ValidateDraft: %v, want %q", err, tc.want)
				}
			}
		})
	}
}

// BenchmarkCheckText checks the text of a replayed fixture (its source,
// round and placeholder) and an accented name: CheckText runs for every
// event of a replay.
func BenchmarkCheckText(b *testing.B) {
	texts := []string{"openfootball:PL:2015:Matchday 1|Manchester United FC|Tottenham Hotspur FC", "Matchday 1", "",
		"1. FC Köln / Beşiktaş JK / Παναθηναϊκός"}
	for b.Loop() {
		for _, s := range texts {
			if err := CheckText("source", s, MaxSource); err != nil {
				b.Fatal(err)
			}
		}
	}
}
