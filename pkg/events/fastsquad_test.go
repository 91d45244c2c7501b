package events

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

func randomSquad(r *rand.Rand) *model.Squad {
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	q := &model.Squad{TeamID: 1 + r.IntN(1<<20)}
	switch r.IntN(8) {
	case 0: // nil: encoded as null
		return q
	case 1:
		q.Players = []model.Player{}
		return q
	}
	for range 1 + r.IntN(30) {
		p := model.Player{ID: 1 + r.IntN(1<<30), Name: pick("Harry Kane", "Sadio Mané", "Jürgen Klinsmann", "O'Neil", "\"Kaká\"", "Tom & Jerry <b>"),
			Position: pick("", "Goalkeeper", "Centre-Back", "Attacking Midfield"), Nationality: pick("", "England", "Côte d'Ivoire")}
		if r.IntN(2) == 0 {
			n := 1 + r.IntN(99)
			p.JerseyNumber = &n
		}
		if r.IntN(2) == 0 {
			d := model.Date(pick("1990-02-28", "2001-12-01"))
			p.DateOfBirth = &d
		}
		if r.IntN(3) == 0 {
			d := model.Date("2027-06-30")
			p.ContractUntil = &d
		}
		if r.IntN(3) == 0 {
			v := pick("", "€12.5m", "1,000,000 £")
			p.MarketValue = &v
		}
		q.Players = append(q.Players, p)
	}
	return q
}

// TestFastSquadDecodeEqualsEncodingJSON decodes many encoded squads both
// ways: the shortcut must give exactly what encoding/json gives, or
// decline.
func TestFastSquadDecodeEqualsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fast := 0
	for range 3000 {
		body, err := Encode(randomSquad(r))
		if err != nil {
			t.Fatal(err)
		}
		var want envelope[model.Squad]
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeSquad(body)
		if !ok {
			continue
		}
		fast++
		if !reflect.DeepEqual(got, want.Data) {
			t.Fatalf("body %s\nfast %+v\njson %+v", body, got, want.Data)
		}
	}
	// Names with quotes or HTML characters are escaped, which the
	// shortcut declines; most squads have one among their players, but
	// the small and empty ones do not.
	if fast < 300 {
		t.Errorf("the shortcut took only %d of 3000 bodies", fast)
	}
}

func TestFastSquadTakesPlainSquads(t *testing.T) {
	n, dob := 9, model.Date("1993-07-28")
	for _, q := range []model.Squad{
		{TeamID: 1},
		{TeamID: 2, Players: []model.Player{}},
		{TeamID: 3, Players: []model.Player{{ID: 7, Name: "Harry Kane", Position: "Centre-Forward", JerseyNumber: &n, DateOfBirth: &dob, Nationality: "England"}, {ID: 8, Name: "Sadio Mané"}}},
	} {
		body, err := Encode(&q)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeSquad(body)
		if !ok || !reflect.DeepEqual(got, q) {
			t.Errorf("%s: got %+v, ok %v; want %+v", body, got, ok, q)
		}
	}
}

func TestFastSquadDeclinesWhatItDoesNotKnow(t *testing.T) {
	for _, body := range []string{
		`{"v":1,"data":{"teamId":1,"coach":"x"}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1,"name":"a","jerseyNumber":null}]}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1,"name":"a\"b"}]}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1}],"players":[{"name":"b"}]}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1,"age":30}]}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1.5}]}}`,
		`{"v":1,"data":{"teamId":1,"players":[{"id":1},]}}`,
		`{"v":1,"data":{"teamId":1,"players": []}}`,
		`{"v":2,"data":{"teamId":1}}`,
		`{"v":1,"data":{"teamId":1}}x`,
		`{"v":1,"data":{"teamId":1,"players":[`,
		`{"v":1,"data":{"teamId":1,"players":nul}}`,
	} {
		if q, ok := decodeSquad([]byte(body)); ok {
			t.Errorf("%s: decoded %+v", body, q)
		}
	}
}

func FuzzFastSquad(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		body, _ := Encode(randomSquad(r))
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := decodeSquad(body)
		if !ok {
			return
		}
		var want envelope[model.Squad]
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("shortcut accepted %q, encoding/json refuses it: %v", body, err)
		}
		if !reflect.DeepEqual(got, want.Data) {
			t.Fatalf("%q: fast %+v, json %+v", body, got, want.Data)
		}
	})
}

func BenchmarkDecodeSquad(b *testing.B) {
	n, dob, until := 9, model.Date("1993-07-28"), model.Date("2027-06-30")
	q := model.Squad{TeamID: 18_377}
	for i := range 25 {
		q.Players = append(q.Players, model.Player{ID: 1_000_000 + i, Name: "Harry Kane", Position: "Centre-Forward",
			JerseyNumber: &n, DateOfBirth: &dob, ContractUntil: &until, Nationality: "England"})
	}
	body, _ := Encode(&q)
	b.Run("shortcut", func(b *testing.B) {
		for b.Loop() {
			if _, ok := decodeSquad(body); !ok {
				b.Fatal("declined")
			}
		}
	})
}
