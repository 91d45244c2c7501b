package model

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxID is the largest id of any entity. The read model keeps ids in 32
// bits, so an id above it could be stored but never served: it is refused
// where ids are made.
const MaxID = 1<<31 - 1

// CheckID refuses an id outside 1..MaxID for field.
func CheckID(field string, id int) error {
	if id < 1 || id > MaxID {
		return Invalidf(field, fmt.Sprint(id), "must be a whole number from 1 to %d", MaxID)
	}
	return nil
}

// Bounds of text fields, in characters. docs/ingest.md lists them.
const (
	MaxName   = 100 // team, player, league and competition names
	MaxShort  = 50  // short names, market values
	MaxLabel  = 60  // rounds, placeholders, groups, positions, nationalities, countries
	MaxReason = 200 // why an adjustment or an order was made
	MaxSource = 300 // where an imported fixture came from
	MaxURL    = 2048
)

// CheckText refuses text for field that is longer than max characters, is
// not UTF-8, or holds a control character or an invisible one (see
// invisible): text is shown to API clients as it is stored, and such
// characters can disguise it. Empty text passes; see CheckRequired.
func CheckText(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return Invalidf(field, strings.ToValidUTF8(s, "?"), "must be UTF-8 text")
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Invalidf(field, s[:min(len(s), 40)]+"…", "is %d characters long; at most %d", n, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) || invisible(r) {
			// Error quotes the value, escaping what does not print.
			return Invalidf(field, s, "must not contain control, formatting or invisible characters (found %U)", r)
		}
	}
	return nil
}

// CheckRequired is CheckText for text that must not be blank.
func CheckRequired(field, s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return Invalidf(field, s, "must not be empty")
	}
	return CheckText(field, s, max)
}

// invisible reports the characters that show nothing of their own yet
// make two texts that look alike differ ("Arse\u200bnal FC" and "Arsenal
// FC"), or reorder what is shown: the format characters (zero-width spaces
// and joiners, word joiners, byte-order marks, soft hyphens, bidirectional
// controls, tags), variation selectors, and the other characters Unicode
// says to ignore when displaying, such as the Hangul fillers. None is
// below U+00AD, the soft hyphen, and only U+034F, the combining grapheme
// joiner, is between it and U+0600: Latin, Greek and Cyrillic text, which
// every replayed fixture's source holds, is not looked up in the tables
// (looking it up doubled BenchmarkCheckText's time).
func invisible(r rune) bool {
	if r < 0x600 {
		return r == 0xAD || r == 0x34F
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// CheckURL refuses anything but an absolute http or https URL for field.
func CheckURL(field, s string) error {
	if err := CheckRequired(field, s, MaxURL); err != nil {
		return err
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return Invalidf(field, s, "must be an absolute http or https URL such as https://example.org/crest.svg")
	}
	return nil
}

// checkOptional runs check on an optional field.
func checkOptional(field string, s *string, check func(field, s string) error) error {
	if s == nil {
		return nil
	}
	return check(field, *s)
}

// textOf returns a CheckText or CheckRequired bound to max, for checkOptional.
func textOf(max int, required bool) func(field, s string) error {
	if required {
		return func(field, s string) error { return CheckRequired(field, s, max) }
	}
	return func(field, s string) error { return CheckText(field, s, max) }
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
