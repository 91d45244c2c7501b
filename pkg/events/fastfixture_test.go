package events

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
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
		Source: pick("", "openfootball:PL:2015:Matchday 1|Norwich City|Crystal Palace", "engsoccer:ENG:1888:preston north end|burnley")}
	f.Result = model.Result{FullTime: score(), HalfTime: score(), ExtraTime: score(), Penalties: score()}
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
		body, err := Encode(randomFixture(r))
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
