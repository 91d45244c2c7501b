package main

import (
	"flag"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// field is a flag that sets one field of an entity of type T: the CLI's
// only knowledge of an entity is this table; rules are the editor's.
type field[T any] struct {
	name, usage string
	set         func(*T, string) error
}

// fields is an entity's table of flags.
type fields[T any] []field[T]

// given holds the values of the flags given, by name.
type given map[string]string

// register adds the table's flags to fs, recording into g.
func (fs fields[T]) register(set *flag.FlagSet, g given) {
	for _, f := range fs {
		set.Func(f.name, f.usage, func(v string) error {
			g[f.name] = v
			return nil
		})
	}
}

// apply sets the fields of the flags given on t, in the table's order.
func (fs fields[T]) apply(g given, t *T) error {
	for _, f := range fs {
		if v, ok := g[f.name]; ok {
			if err := f.set(t, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseInt parses a whole number for field.
func parseInt(field, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, model.Invalidf(field, v, "must be a whole number")
	}
	return n, nil
}

// parseID parses an id for field.
func parseID(field, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, model.Invalidf(field, v, "must be a positive whole number")
	}
	return n, model.CheckID(field, n)
}

// ptr returns nil for "" (the flag clears the field), else a pointer.
func ptr(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// intList parses "1,2,3" for field.
func intList(field, s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := parseID(field, part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func parseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, model.Invalidf(field, s, "must be an RFC 3339 time such as 2026-03-14T15:00:00Z")
	}
	return t.UTC(), nil
}
