package codectest

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

type inner struct {
	N    int
	Text *string
}

type kinds struct {
	I      int
	U8     uint8
	F      float64
	S      string
	B      bool
	At     time.Time
	P      *inner
	List   []inner
	Pair   [2]int
	ByName map[string]inner
	Named  kind
	hidden int
}

type kind string

// TestFillSetsEveryField: no exported field is left zero, and no two
// scalars get the same value.
func TestFillSetsEveryField(t *testing.T) {
	var v kinds
	Fill(&v)
	var seen []any
	var walk func(path string, x reflect.Value)
	walk = func(path string, x reflect.Value) {
		switch {
		case x.Type() == timeType:
		case x.Kind() == reflect.Struct:
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(path+"."+x.Type().Field(i).Name, x.Field(i))
				}
			}
			return
		case x.Kind() == reflect.Pointer:
			walk(path, x.Elem())
			return
		case x.Kind() == reflect.Slice, x.Kind() == reflect.Array:
			for i := range x.Len() {
				walk(path, x.Index(i))
			}
		case x.Kind() == reflect.Map:
			for _, k := range x.MapKeys() {
				walk(path+"[key]", k)
				walk(path, x.MapIndex(k))
			}
		case x.Kind() != reflect.Bool:
			if slices.Contains(seen, x.Interface()) {
				t.Errorf("%s: %v given twice", path, x.Interface())
			}
			seen = append(seen, x.Interface())
		}
		if x.IsZero() {
			t.Errorf("%s is zero", path)
		}
	}
	walk("kinds", reflect.ValueOf(v))
	if v.hidden != 0 {
		t.Errorf("unexported field set to %d", v.hidden)
	}
}

// TestDiffNamesTheField: a difference is named by its path; Zero clears
// a field through pointers and slices.
func TestDiffNamesTheField(t *testing.T) {
	var want, got kinds
	Fill(&want)
	Fill(&got)
	if d := Diff(&want, &got); len(d) != 0 {
		t.Fatalf("two fills differ: %v", d)
	}
	Zero(&got, "List.Text")
	got.ByName = nil
	got.At = got.At.In(time.FixedZone("", 3600))
	d := Diff(&want, &got)
	if len(d) != 2 || d[0] != "kinds.List[0].Text: got nil true, want nil false" || d[1] != "kinds.ByName: got 0 entries (nil true), want 1 (nil false)" {
		t.Errorf("Diff = %q", d)
	}
}
