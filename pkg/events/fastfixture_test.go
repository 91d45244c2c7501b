package events

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

func randomFixture(r *rand.Rand) *model.Fixture {
	score := func() *model.Score {
		if r.IntN(3) == 0 {
			return nil
		}
		return &model.Score{Home: r.IntN(10), Away: r.IntN(10)}
	}
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	f := &model.Fixture{ID: r.IntN(1 << 30), CompetitionID: r.IntN(5000), Matchday: 1 + r.IntN(99),
		Group: pick("", "A", "H"), Stage: model.Stage(pick("REGULAR", "PLAYOFF")), Round: pick("", "Matchday 7", "Round of 16", "Jürgen's <cup> & \"final\""),
		Kickoff:    time.Date(1888+r.IntN(200), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), 0, r.IntN(2)*500_000_000, time.UTC),
		HomeTeamID: r.IntN(3), AwayTeamID: r.IntN(100000), HomePlaceholder: pick("", "W49", "1A"),
		Status: model.Statuses[r.IntN(len(model.Statuses))], Awarded: model.Side(pick("", "HOME_TEAM", "AWAY_TEAM", "DRAW")),
		Referee: pick("", "M Clattenburg", "Jürgen Aust"),
		Source:  pick("", "openfootball:PL:2015:Matchday 1|Norwich City|Crystal Palace", "engsoccer:ENG:1888:preston north end|burnley")}
	f.Result = model.Result{FullTime: score(), HalfTime: score(), ExtraTime: score(), Penalties: score()}
	if r.IntN(2) == 0 {
		// A live match's minute and stoppage time.
		f.Minute, f.InjuryTime = 1+r.IntN(120), r.IntN(31)
	}
	if r.IntN(2) == 0 {
		f.Odds = &model.Odds{HomeWin: 1 + r.Float64()*20, Draw: 3.25, AwayWin: 1e21}
	}
	return f
}

// TestFastFixtureDecodeEqualsEncodingJSON decodes many encoded fixtures
// both ways: the shortcut must give exactly what encoding/json gives, or
// decline.
func TestFastFixtureDecodeEqualsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for i := 0; i < 5000; i++ {
		f := randomFixture(r)
		if i%11 == 0 {
			// Encoded by encoding/json with an offset, which the
			// shortcut reads as encoding/json reads a time.
			f.Kickoff = f.Kickoff.In(time.FixedZone("", 3600))
		}
		body, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		var want envelope[model.Fixture]
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeFixture(body)
		if !ok {
			continue
		}
		fast++
		if !reflect.DeepEqual(got, want.Data) || !got.Kickoff.Equal(want.Data.Kickoff) {
			t.Fatalf("body %s\nfast %+v\njson %+v", body, got, want.Data)
		}
	}
	// One round label in four needs escapes, which the shortcut declines.
	if fast < 3500 {
		t.Errorf("the shortcut took only %d of 5000 bodies", fast)
	}
}

func TestFastFixtureDeclinesWhatItDoesNotKnow(t *testing.T) {
	for _, body := range []string{
		`{"v":1,"data":{"id":1,"newField":2}}`,
		`{"v":1,"data":{"id":1,"odds":null}}`,
		`{"v":1,"data":{"id":1,"round":"a\"b"}}`,
		`{"v":2,"data":{"id":1}}`,
		`{"v":1, "data":{"id":1}}`,
		`{"v":1,"data":{"id":1}}x`,
		`{"v":1,"data":{"id":1.5}}`,
		`{"v":1,"data":{"kickoff":"yesterday"}}`,
		`{"v":1,"data":{"id":1`,
	} {
		if f, ok := decodeFixture([]byte(body)); ok {
			t.Errorf("%s: decoded %+v", body, f)
		}
	}
}

func FuzzFastFixture(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		body, _ := Encode(randomFixture(r))
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := decodeFixture(body)
		if !ok {
			return
		}
		var want envelope[model.Fixture]
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("shortcut accepted %q, encoding/json refuses it: %v", body, err)
		}
		if !reflect.DeepEqual(got, want.Data) {
			t.Fatalf("%q: fast %+v, json %+v", body, got, want.Data)
		}
	})
}

func BenchmarkDecodeFixture(b *testing.B) {
	body, _ := Encode(randomFixture(rand.New(rand.NewPCG(5, 6))))
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var e envelope[model.Fixture]
			if err := json.Unmarshal(body, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shortcut", func(b *testing.B) {
		for b.Loop() {
			if _, ok := decodeFixture(body); !ok {
				b.Fatal("declined")
			}
		}
	})
	// A played league fixture as internal/generate writes most of a
	// benchmark world's million.
	generated, _ := Encode(&model.Fixture{ID: 734_512, CompetitionID: 1_204, Matchday: 23, Stage: model.Regular,
		Kickoff: time.Date(2031, 2, 15, 15, 0, 0, 0, time.UTC), HomeTeamID: 18_377, AwayTeamID: 18_391, Status: model.Finished,
		Result: model.Result{FullTime: &model.Score{Home: 2, Away: 1}, HalfTime: &model.Score{Home: 1}}})
	b.Run("shortcut-generated", func(b *testing.B) {
		for b.Loop() {
			if _, ok := decodeFixture(generated); !ok {
				b.Fatal("declined")
			}
		}
	})
}

// TestFastFixtureEncodeEqualsEncodingJSON encodes many fixtures both ways:
// the shortcut must write exactly what encoding/json writes, or decline.
func TestFastFixtureEncodeEqualsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for i := 0; i < 5000; i++ {
		f := randomFixture(r)
		if i%7 == 0 {
			f.Leg = 1 + r.IntN(2)
		}
		if i%11 == 0 {
			f.Kickoff = f.Kickoff.In(time.FixedZone("CET", 3600))
		}
		want, err := json.Marshal(envelope[any]{V: SchemaVersion, Data: f})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := encodeFixture(nil, f)
		if !ok {
			continue
		}
		fast++
		if string(got) != string(want) {
			t.Fatalf("fixture %+v\nfast %s\njson %s", f, got, want)
		}
	}
	// Half have odds of 1e21 and a quarter a round label with escapes,
	// which the shortcut declines; one in eleven a local time.
	if fast < 1500 {
		t.Errorf("the shortcut took only %d of 5000 fixtures", fast)
	}
}

func FuzzFastFixtureEncode(f *testing.F) {
	f.Add(1, 2, 3, "Matchday 7", "W49", 1.85, int64(1439042400))
	f.Fuzz(func(t *testing.T, id, home, away int, round, placeholder string, odds float64, kickoff int64) {
		fx := &model.Fixture{ID: id, CompetitionID: 1, Matchday: 1, Stage: model.Regular, Round: round, HomePlaceholder: placeholder,
			Kickoff: time.Unix(kickoff, 0).UTC(), HomeTeamID: home, AwayTeamID: away, Status: model.Timed,
			Odds: &model.Odds{HomeWin: odds, Draw: odds * 2, AwayWin: -odds}}
		got, ok := encodeFixture(nil, fx)
		if !ok {
			return
		}
		want, err := json.Marshal(envelope[any]{V: SchemaVersion, Data: fx})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("fast %s\njson %s", got, want)
		}
	})
}

// TestScannerIntAndStr reads single values: what the scanner takes must be
// what encoding/json gives, and it must decline the rest (encoding/json
// then reads, or refuses, the body).
func TestScannerIntAndStr(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
		rest string // what follows the integer
	}{
		{"0", 0, true, ""},
		{"-0", 0, true, ""},
		{"7,", 7, true, ","},
		{"-42}", -42, true, "}"},
		{"1439042400", 1439042400, true, ""},
		{"999999999999999999", 999999999999999999, true, ""},
		{"-999999999999999999]", -999999999999999999, true, "]"},
		{"1000000000000000000", 0, false, ""}, // 19 digits
		{"9223372036854775808", 0, false, ""}, // overflows int64
		{"", 0, false, ""},
		{"-", 0, false, ""},
		{"--1", 0, false, ""},
		{"+1", 0, false, ""},
		{"01", 0, false, ""},
		{"-01", 0, false, ""},
		{"00", 0, false, ""},
		{"1.5", 0, false, ""},
		{"1.0", 0, false, ""},
		{"1e3", 0, false, ""},
		{"1E3", 0, false, ""},
		{"null", 0, false, ""},
		{`"1"`, 0, false, ""},
		{" 1", 0, false, ""},
	} {
		s := scanner{b: []byte(tc.in)}
		got, err := s.int()
		if (err == nil) != tc.ok || got != tc.want || (tc.ok && string(s.b[s.i:]) != tc.rest) {
			t.Errorf("int %q: got %d, %v, rest %q; want %d, ok %v, rest %q", tc.in, got, err, s.b[s.i:], tc.want, tc.ok, tc.rest)
		}
		if !tc.ok {
			continue
		}
		var want int
		if err := json.Unmarshal([]byte(tc.in[:len(tc.in)-len(tc.rest)]), &want); err != nil || want != got {
			t.Errorf("int %q: encoding/json gives %d, %v", tc.in, want, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`""`, "", true},
		{`"Matchday 7",`, "Matchday 7", true},
		{`"1. FC Köln"}`, "1. FC Köln", true},
		{`"Côte d'Ivoire & <b>"`, "Côte d'Ivoire & <b>", true},
		{`"\u2028 escaped"`, "", false},
		{"\"\u2028\"", "\u2028", true},
		{`"a\"b"`, "", false},
		{`"a\\"`, "", false},
		{`"a\nb"`, "", false},
		{"\"a\nb\"", "", false},
		{"\"a\tb\"", "", false},
		{"\"\x00\"", "", false},
		{"\"\x1f\"", "", false},
		{"\"\x7f\"", "\x7f", true},
		{"\"\xff\"", "", false},
		{"\"K\xc3\"", "", false},        // a truncated rune
		{"\"\xed\xa0\x80\"", "", false}, // a surrogate
		{`"unterminated`, "", false},
		{`unquoted"`, "", false},
		{``, "", false},
	} {
		s := scanner{b: []byte(tc.in)}
		got, err := s.str()
		if (err == nil) != tc.ok || string(got) != tc.want {
			t.Errorf("str %q: got %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if !tc.ok {
			continue
		}
		var want string
		if err := json.Unmarshal(s.b[:s.i], &want); err != nil || want != string(got) {
			t.Errorf("str %q: encoding/json gives %q, %v", tc.in, want, err)
		}
	}
}

// TestScannerStrEveryLane puts each byte the scanner must stop at in
// every position of the first eight-byte blocks, and a string of every
// printable ASCII byte (a quote and a backslash aside) through them.
func TestScannerStrEveryLane(t *testing.T) {
	var printable []byte
	for c := byte(0x20); c < 0x7f; c++ {
		if c != '"' && c != '\\' {
			printable = append(printable, c)
		}
	}
	s := scanner{b: []byte(`"` + string(printable) + `"`)}
	if got, err := s.str(); err != nil || string(got) != string(printable) {
		t.Errorf("printable ASCII: got %q, %v", got, err)
	}
	for pos := range 24 {
		prefix := strings.Repeat("a", pos)
		for _, c := range []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff} {
			s := scanner{b: []byte(`"` + prefix + string([]byte{c}) + `b"`)}
			got, err := s.str()
			if c == '"' {
				if err != nil || string(got) != prefix {
					t.Errorf("quote at %d: got %q, %v", pos, got, err)
				}
			} else if err == nil {
				t.Errorf("byte %#x at %d: took %q", c, pos, got)
			}
		}
	}
}

// TestKickoff reads times both by hand and as encoding/json does: the
// results must be identical, location included, and the layouts the hand
// declines must still be read as before.
func TestKickoff(t *testing.T) {
	for _, tc := range []struct {
		in   string
		fast bool // read by hand
	}{
		{"2015-08-08T11:45:00Z", true},
		{"1888-09-08T15:00:00Z", true},
		{"0000-01-01T00:00:00Z", true},
		{"9999-12-31T23:59:59Z", true},
		{"2016-02-29T12:00:00Z", true},
		{"2000-02-29T12:00:00Z", true},
		{"2015-08-08T11:45:00.5Z", true},
		{"2015-08-08T11:45:00.500Z", true},
		{"2015-08-08T11:45:00.000000001Z", true},
		{"2015-08-08T11:45:00.999999999Z", true},
		{"2015-08-08T11:45:00+01:00", false},
		{"2015-08-08T11:45:00-00:00", false},
		{"2015-08-08T11:45:00.5+05:30", false},
		{"2015-08-08T11:45:00,5Z", false},
		{"2015-08-08T11:45:00.Z", false},
		{"2015-08-08T11:45:00.1234567891Z", false},
		{"2015-08-08t11:45:00Z", false},
		{"2015-08-08T11:45:00z", false},
		{"2015-8-08T11:45:00Z", false},
		{"2015-08-08T11:45Z", false},
		{"2015-08-08 11:45:00Z", false},
		{"2015-02-29T12:00:00Z", false},
		{"1900-02-29T12:00:00Z", false},
		{"2015-04-31T12:00:00Z", false},
		{"2015-00-10T12:00:00Z", false},
		{"2015-13-10T12:00:00Z", false},
		{"2015-08-00T12:00:00Z", false},
		{"2015-08-08T24:00:00Z", false},
		{"2015-08-08T23:60:00Z", false},
		{"2016-12-31T23:59:60Z", false},
		{"2015-08-08T1a:45:00Z", false},
		{"+015-08-08T11:45:00Z", false},
		{"yesterday", false},
		{"", false},
	} {
		_, fast := utcTime([]byte(tc.in))
		if fast != tc.fast {
			t.Errorf("%q: read by hand %v, want %v", tc.in, fast, tc.fast)
		}
		got, err := kickoff([]byte(tc.in))
		var want time.Time
		wantErr := want.UnmarshalJSON([]byte(`"` + tc.in + `"`))
		parsed, parseErr := time.Parse(time.RFC3339Nano, tc.in)
		// A time with an offset has a location of its own per parse:
		// equal in value, not in pointer.
		same := func(a, b time.Time) bool { return a == b || (!tc.fast && reflect.DeepEqual(a, b)) }
		if (err == nil) != (wantErr == nil) || !same(got, want) || (parseErr == nil && !same(got, parsed)) {
			t.Errorf("%q: got %v (%v), %v; encoding/json %v (%v), %v; time.Parse %v, %v",
				tc.in, got, got.Location(), err, want, want.Location(), wantErr, parsed, parseErr)
		}
	}
}
