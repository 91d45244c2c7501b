package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeOfFileIsUnmarshal decodes every real openfootball file both
// ways: where the hand-written decoder takes a file, it must read what
// encoding/json reads. Every league file of 2015-16 (the bench's import)
// and the World Cups with goals must be taken, or the fast path would be
// dead weight.
func TestDecodeOfFileIsUnmarshal(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("../../../shared/data/openfootball-football-json", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no openfootball files in ../shared/data (the real-data tests need it beside the repository): %v", err)
	}
	cups, _ := filepath.Glob(filepath.Join("../../../shared/data/openfootball-worldcup-json", "*", "worldcup.json"))
	euros, _ := filepath.Glob(filepath.Join("../../../shared/data/openfootball-euro-json", "*", "euro.json"))
	if len(cups) == 0 || len(euros) == 0 {
		t.Fatal("no World Cup or Euro files in ../shared/data")
	}
	files = append(append(files, cups...), euros...)
	taken := 0
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want ofFile
		wantErr := json.Unmarshal(raw, &want)
		got, ok := decodeOfFile(raw)
		switch {
		case ok && wantErr != nil:
			t.Errorf("%s: decoded, but encoding/json says %v", path, wantErr)
		case ok && !reflect.DeepEqual(got, want):
			t.Errorf("%s: decoded differently from encoding/json", path)
		case ok:
			taken++
		case filepath.Base(filepath.Dir(path)) == "2015-16" || strings.HasSuffix(path, "2018/worldcup.json") || strings.HasSuffix(path, "2026/worldcup.json"):
			t.Errorf("%s: not taken by the fast decoder", path)
		}
	}
	t.Logf("%d of %d files taken by the fast decoder", taken, len(files))
}

// TestDecodeOfFileLeavesTheRestToEncodingJSON gives the decoder what it
// must not take (encoding/json decides those, with its own results and
// errors) and what it must read as encoding/json does.
func TestDecodeOfFileLeavesTheRestToEncodingJSON(t *testing.T) {
	tests := []struct {
		name, in string
		taken    bool
	}{
		{"plain", `{"name":"L","matches":[{"round":"Matchday 1","date":"2015-08-08","team1":"A","team2":"B","score":{"ft":[1,0],"ht":[0,0]}}]}`, true},
		{"unknown fields skipped", `{"name":"L","x":{"y":["z",true]},"matches":[{"team1":"A","team2":"B","w":false,"score":{}}]}`, true},
		{"rounds", ` {"rounds":[{"name":"R1","matches":[{"team1":"A","team2":"B"}]}],"matches":[]} `, true},
		{"goals", `{"matches":[{"team1":"A","team2":"B","ground":"G","goals1":[{"name":"K","minute":90,"offset":2,"penalty":true}],` +
			`"goals2":[{"name":"R","minute":"87","owngoal":false},{"name":"S","minute":"45+1"}]}]}`, true},
		{"goal minute a fraction", `{"matches":[{"team1":"A","team2":"B","goals1":[{"name":"K","minute":9.5}]}]}`, false},
		{"goal minute null", `{"matches":[{"team1":"A","team2":"B","goals1":[{"name":"K","minute":null}]}]}`, false},
		{"empty score arrays", `{"matches":[{"team1":"A","team2":"B","score":{"ft":[],"p":[-1,10]}}]}`, true},
		{"escape", `{"matches":[{"team1":"A\u00e9","team2":"B"}]}`, false},
		{"null", `{"matches":[{"team1":"A","team2":"B","group":null}]}`, false},
		{"team object", `{"matches":[{"team1":{"name":"A","code":"AAA"},"team2":"B"}]}`, false},
		{"key twice", `{"matches":[{"team1":"A","team1":"C","team2":"B"}]}`, false},
		{"key in other case", `{"matches":[{"Team1":"A","team2":"B"}]}`, false},
		{"fraction", `{"matches":[{"team1":"A","team2":"B","score":{"ft":[1.0,0]}}]}`, false},
		{"leading zero", `{"matches":[{"team1":"A","team2":"B","score":{"ft":[01,0]}}]}`, false},
		{"number in an unknown field", `{"n":3,"matches":[]}`, true},
		{"fraction in an unknown field", `{"n":3.5,"matches":[]}`, false},
		{"trailing comma", `{"matches":[{"team1":"A","team2":"B"},]}`, false},
		{"not closed", `{"matches":[{"team1":"A","team2":"B"}]`, false},
		{"trailing data", `{"matches":[]} x`, false},
		{"invalid UTF-8", "{\"name\":\"\xff\",\"matches\":[]}", false},
		{"control character", "{\"name\":\"a\tb\",\"matches\":[]}", false},
	}
	for _, tt := range tests {
		got, ok := decodeOfFile([]byte(tt.in))
		if ok != tt.taken {
			t.Errorf("%s: taken %v, want %v", tt.name, ok, tt.taken)
			continue
		}
		if !ok {
			continue
		}
		var want ofFile
		if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
			t.Errorf("%s: taken, but encoding/json says %v", tt.name, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, want)
		}
	}
}

// BenchmarkDecodeOfFile decodes the 2015-16 Premier League file and the
// World Cup 2018 file (goals, grounds) by hand and with encoding/json.
func BenchmarkDecodeOfFile(b *testing.B) {
	for _, file := range []string{"openfootball-football-json/2015-16/en.1.json", "openfootball-worldcup-json/2018/worldcup.json"} {
		raw, err := os.ReadFile("../../../shared/data/" + file)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		b.Run(name+"/hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := decodeOfFile(raw); !ok {
					b.Fatal("not taken")
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var f ofFile
				if err := json.Unmarshal(raw, &f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
