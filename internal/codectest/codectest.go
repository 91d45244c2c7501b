// Package codectest checks that a hand-written codec carries every field
// of the types it reads or writes, so that a field added to a type fails a
// test naming it rather than vanishing on the way: Fill sets every
// exported field, found by reflection, to a value that is not zero, Diff
// names the fields where what came out of a codec differs from what went
// in, and Zero clears a field a codec deliberately does not carry. It is
// for tests only.
package codectest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// maxDepth bounds Fill on types that contain themselves.
const maxDepth = 8

// base is the first time Fill gives: whole seconds in UTC, a time every
// codec that keeps a time keeps exactly.
var base = time.Date(2031, 2, 15, 15, 0, 0, 0, time.UTC)

// Fill sets every exported field of the struct v points to, and of the
// structs within it, to a value that is not zero and that no other field
// of its kind gets: integers count up from 1, floats are the count and a
// half, strings "s" and the count, booleans true, times whole hours after
// base in UTC; a pointer gets a new filled value, a slice one filled
// element, a map one filled entry. Fields of types it cannot fill
// (functions, channels, interfaces) stay as they are.
func Fill(v any) {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		panic(fmt.Sprintf("codectest.Fill: %T is not a non-nil pointer", v))
	}
	n := 0
	fill(p.Elem(), &n, 0)
}

var timeType = reflect.TypeFor[time.Time]()

func fill(v reflect.Value, n *int, depth int) {
	if depth > maxDepth {
		return
	}
	if v.Type() == timeType {
		*n++
		v.Set(reflect.ValueOf(base.Add(time.Duration(*n) * time.Hour)))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n, depth+1)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n, depth+1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), n, depth+1)
		}
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n, depth+1)
		fill(e, n, depth+1)
		v.Set(reflect.MakeMapWithSize(v.Type(), 1))
		v.SetMapIndex(k, e)
	default:
		fillScalar(v, n)
	}
}

func fillScalar(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.String:
		v.SetString("s" + strconv.Itoa(*n))
	case reflect.Bool:
		v.SetBool(true)
	}
}

// Zero sets the field at path (field names from the struct v points to,
// dot-separated: "Result.FullTime") to its zero value; a pointer, slice
// or map on the way is followed to its (first) element.
func Zero(v any, path string) {
	f := reflect.ValueOf(v).Elem()
	for _, name := range strings.Split(path, ".") {
		for f.Kind() == reflect.Pointer || f.Kind() == reflect.Slice {
			if f.Kind() == reflect.Pointer {
				f = f.Elem()
			} else {
				f = f.Index(0)
			}
		}
		f = f.FieldByName(name)
		if !f.IsValid() {
			panic(fmt.Sprintf("codectest.Zero: %T has no field %s", v, path))
		}
	}
	f.SetZero()
}

// Diff lists where got differs from want, one line a difference, each
// naming the field by its path from the type ("Fixture.Result.FullTime.Home:
// got 0, want 7"). Times are compared with Equal.
func Diff(want, got any) []string {
	w, g := reflect.ValueOf(want), reflect.ValueOf(got)
	if w.Type() != g.Type() {
		return []string{fmt.Sprintf("got a %s, want a %s", g.Type(), w.Type())}
	}
	t := w.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	diff(t.Name(), w, g, &out)
	return out
}

func diff(path string, w, g reflect.Value, out *[]string) {
	if w.Type() == timeType {
		if wt, gt := w.Interface().(time.Time), g.Interface().(time.Time); !wt.Equal(gt) {
			*out = append(*out, fmt.Sprintf("%s: got %s, want %s", path, gt, wt))
		}
		return
	}
	switch w.Kind() {
	case reflect.Struct:
		for i := range w.NumField() {
			if w.Type().Field(i).IsExported() {
				diff(path+"."+w.Type().Field(i).Name, w.Field(i), g.Field(i), out)
			}
		}
	case reflect.Pointer:
		if w.IsNil() != g.IsNil() {
			*out = append(*out, fmt.Sprintf("%s: got nil %v, want nil %v", path, g.IsNil(), w.IsNil()))
			return
		}
		if !w.IsNil() {
			diff(path, w.Elem(), g.Elem(), out)
		}
	case reflect.Slice, reflect.Array:
		diffElems(path, w, g, out)
	case reflect.Map:
		diffEntries(path, w, g, out)
	default:
		if !reflect.DeepEqual(w.Interface(), g.Interface()) {
			*out = append(*out, fmt.Sprintf("%s: got %#v, want %#v", path, g.Interface(), w.Interface()))
		}
	}
}

func diffElems(path string, w, g reflect.Value, out *[]string) {
	slice := w.Kind() == reflect.Slice
	if w.Len() != g.Len() || (slice && w.IsNil() != g.IsNil()) {
		*out = append(*out, fmt.Sprintf("%s: got %d elements (nil %v), want %d (nil %v)", path, g.Len(), slice && g.IsNil(), w.Len(), slice && w.IsNil()))
		return
	}
	for i := range w.Len() {
		diff(path+"["+strconv.Itoa(i)+"]", w.Index(i), g.Index(i), out)
	}
}

func diffEntries(path string, w, g reflect.Value, out *[]string) {
	if w.Len() != g.Len() || w.IsNil() != g.IsNil() {
		*out = append(*out, fmt.Sprintf("%s: got %d entries (nil %v), want %d (nil %v)", path, g.Len(), g.IsNil(), w.Len(), w.IsNil()))
		return
	}
	for _, k := range w.MapKeys() {
		gv := g.MapIndex(k)
		if !gv.IsValid() {
			*out = append(*out, fmt.Sprintf("%s[%v]: missing", path, k))
			continue
		}
		diff(fmt.Sprintf("%s[%v]", path, k), w.MapIndex(k), gv, out)
	}
}
