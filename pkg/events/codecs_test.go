package events

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/codectest"
	"github.com/footdata/footballd/pkg/model"
)

// The fast codecs (fastencode.go, fastfixture.go, fastsquad.go) are a
// second definition of their types' layout: a field added to model.Fixture
// that encodeFixture does not write passed every other test while the
// editors wrote events without it. These tests fill every exported field
// of every type that crosses the stream (codectest.Fill, by reflection, so
// a new field is filled without a change here) and name each field a codec
// loses.

// notCarried are the fields a fast codec deliberately leaves to
// encoding/json: the codec declines a value or body that has them, and
// Encode or Decode takes the general path. Every other field must go
// through.
var notCarried = map[string][]string{
	// Goals are rare (tournament files) and nested.
	"encodeFixture": {"Goals"},
	"decodeFixture": {"Goals"},
}

func filled[T any](zero ...string) *T {
	v := new(T)
	codectest.Fill(v)
	for _, path := range zero {
		codectest.Zero(v, path)
	}
	return v
}

func report(t *testing.T, codec string, diffs []string) {
	t.Helper()
	for _, d := range diffs {
		t.Errorf("%s loses %s", codec, d)
	}
}

// TestFastEncoderCarriesEveryField: encodeFixture writes every field, as
// encoding/json writes it, for a fixture with every field set.
func TestFastEncoderCarriesEveryField(t *testing.T) {
	f := filled[model.Fixture](notCarried["encodeFixture"]...)
	body, ok := encodeFixture(nil, f)
	if !ok {
		t.Fatalf("encodeFixture declined a fixture with every field set: %+v", f)
	}
	var got envelope[model.Fixture]
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("encodeFixture wrote %s: %v", body, err)
	}
	report(t, "encodeFixture", codectest.Diff(f, &got.Data))
	want, err := json.Marshal(envelope[any]{V: SchemaVersion, Data: f})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("encodeFixture wrote\n%s\nencoding/json writes\n%s", body, want)
	}
}

// TestFastDecodersReadEveryField: decodeFixture and decodeSquad read
// every field of what encoding/json writes for a value with every field
// set, rather than declining it (every replay would then take the slow
// path) or dropping a field.
func TestFastDecodersReadEveryField(t *testing.T) {
	t.Run("decodeFixture", func(t *testing.T) {
		checkDecoder(t, "decodeFixture", filled[model.Fixture](notCarried["decodeFixture"]...), decodeFixture)
	})
	t.Run("decodeSquad", func(t *testing.T) {
		checkDecoder(t, "decodeSquad", filled[model.Squad](notCarried["decodeSquad"]...), decodeSquad)
	})
}

func checkDecoder[T any](t *testing.T, codec string, want *T, decode func([]byte) (T, bool)) {
	t.Helper()
	body, err := json.Marshal(envelope[*T]{V: SchemaVersion, Data: want})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decode(body)
	if !ok {
		accepts := func(b []byte) bool { _, ok := decode(b); return ok }
		t.Fatalf("%s declines what encoding/json writes for a %T with every field set: it does not read %s\n%s",
			codec, *want, strings.Join(unread[T](t, body, accepts), ", "), body)
	}
	report(t, codec, codectest.Diff(want, &got))
}

// unread names the fields of body (an envelope of a T) without which
// accepts takes it: the fields a decoder does not know. Only the deepest
// is named where a field within a field is the cause.
func unread[T any](t *testing.T, body []byte, accepts func([]byte) bool) []string {
	t.Helper()
	var env map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		t.Fatal(err)
	}
	var keys [][]string
	var walk func(path []string, node any)
	walk = func(path []string, node any) {
		switch n := node.(type) {
		case map[string]any:
			for k, v := range n {
				delete(n, k)
				if b, err := json.Marshal(env); err == nil && accepts(b) {
					keys = append(keys, append(slices.Clip(path), k))
				}
				n[k] = v
				walk(append(slices.Clip(path), k), v)
			}
		case []any:
			for _, e := range n {
				walk(path, e)
			}
		}
	}
	walk(nil, env["data"])
	var names []string
	for _, k := range keys {
		deepest := !slices.ContainsFunc(keys, func(other []string) bool { return len(other) > len(k) && slices.Equal(other[:len(k)], k) })
		if deepest {
			names = append(names, goPath(reflect.TypeFor[T](), k))
		}
	}
	sort.Strings(names)
	return names
}

// goPath names the field at the JSON keys path of a value of type t, as
// codectest.Diff names it (Squad.Players.Foot).
func goPath(t reflect.Type, keys []string) string {
	name := t.Name()
	for _, k := range keys {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return name + "." + k
		}
		f, ok := fieldOfKey(t, k)
		if !ok {
			return name + "." + k
		}
		name, t = name+"."+f.Name, f.Type
	}
	return name
}

// fieldOfKey is the field of struct type t that encoding/json writes under
// key.
func fieldOfKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if f.IsExported() && strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// streamTypes are the types SubjectOf puts on the stream, each with its
// round trip through Encode and Decode, whichever path they take.
var streamTypes = map[string]func(*testing.T){
	"League":         roundTrip[model.League](),
	"Competition":    roundTrip[model.Competition](),
	"Team":           roundTrip[model.Team](),
	"TeamName":       roundTrip[model.TeamName](),
	"Squad":          roundTrip[model.Squad](),
	"Fixture":        roundTrip[model.Fixture](),
	"Adjustment":     roundTrip[model.Adjustment](),
	"TieBreakOrder":  roundTrip[model.TieBreakOrder](),
	"TieBreakData":   roundTrip[model.TieBreakData](),
	"Client":         roundTrip[model.Client](),
	"ClientToken":    roundTrip[model.ClientToken](),
	"Webhook":        roundTrip[model.Webhook](),
	"Feed":           roundTrip[model.Feed](),
	"Person":         roundTrip[model.Person](),
	"CompetitionKey": roundTrip[model.CompetitionKey](),
	"SourceKeys":     roundTrip[model.SourceKeys](),
}

// roundTrip checks a T with every field set but zero through Encode and
// Decode.
func roundTrip[T any](zero ...string) func(*testing.T) {
	return func(t *testing.T) {
		want := filled[T](zero...)
		body, err := Encode(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode[T](body)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		report(t, "Encode then Decode", codectest.Diff(want, &got))
	}
}

// TestEveryStreamTypeRoundTrips: every field of every type on the stream
// comes back from Encode and Decode; a fixture without goals takes both
// fast paths, with them the general one.
func TestEveryStreamTypeRoundTrips(t *testing.T) {
	for name, check := range streamTypes {
		t.Run(name, check)
	}
	t.Run("Fixture without goals", roundTrip[model.Fixture]("Goals"))
}

// TestStreamTypesAreSubjectOfs: the table above lists exactly the types
// SubjectOf knows, so that a new kind is checked from the day it is added.
func TestStreamTypesAreSubjectOfs(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "subjects.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var inSwitch []string
	ast.Inspect(file, func(n ast.Node) bool {
		if fn, ok := n.(*ast.FuncDecl); ok && fn.Name.Name != "SubjectOf" {
			return false
		}
		if cc, ok := n.(*ast.CaseClause); ok {
			for _, e := range cc.List {
				if star, ok := e.(*ast.StarExpr); ok {
					if sel, ok := star.X.(*ast.SelectorExpr); ok {
						inSwitch = append(inSwitch, sel.Sel.Name)
					}
				}
			}
		}
		return true
	})
	var inTable []string
	for name := range streamTypes {
		inTable = append(inTable, name)
	}
	sort.Strings(inSwitch)
	sort.Strings(inTable)
	if len(inSwitch) == 0 || !slices.Equal(inSwitch, inTable) {
		t.Errorf("SubjectOf puts %v on the stream; streamTypes checks %v", inSwitch, inTable)
	}
}
