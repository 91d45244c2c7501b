package events

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/model"
)

// Fixtures are almost every message an import writes, and encoding them is
// a large part of its cost: encodeFixture writes exactly what
// encoding/json writes for a fixture's envelope, several times faster.
// Anything it would have to escape (a string with a quote, a backslash, a
// control character, HTML characters, invalid UTF-8 or U+2028 and U+2029),
// a float outside the range encoding/json writes plainly, or a time that
// is not plain UTC makes it give up, and Encode uses encoding/json: it is
// a shortcut, never a second definition of the format. Tests compare both
// on random fixtures and on text.

// encodeFixture appends the envelope of f to b; ok is false when it gave up.
func encodeFixture(b []byte, f *model.Fixture) ([]byte, bool) {
	if len(f.Goals) > 0 {
		// Rare (tournament files) and nested: encoding/json's.
		return b, false
	}
	ok := true
	str := func(key, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		if !plainText(v) {
			ok = false
			return
		}
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':', '"')
		b = append(b, v...)
		b = append(b, '"')
	}
	num := func(key string, v int, omitEmpty bool) {
		if omitEmpty && v == 0 {
			return
		}
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	b = append(b, `,"data":{"id":`...)
	b = strconv.AppendInt(b, int64(f.ID), 10)
	num("competitionId", f.CompetitionID, false)
	num("matchday", f.Matchday, false)
	str("group", f.Group, true)
	str("stage", string(f.Stage), false)
	num("leg", f.Leg, true)
	str("round", f.Round, true)
	if f.Kickoff.Location() != time.UTC || f.Kickoff.Year() < 0 || f.Kickoff.Year() > 9999 {
		return b, false
	}
	b = append(b, `,"kickoff":"`...)
	b = f.Kickoff.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	num("homeTeamId", f.HomeTeamID, true)
	num("awayTeamId", f.AwayTeamID, true)
	str("homePlaceholder", f.HomePlaceholder, true)
	str("awayPlaceholder", f.AwayPlaceholder, true)
	str("status", string(f.Status), false)
	b = append(b, `,"result":{`...)
	first := true
	for _, s := range []struct {
		key   string
		score *model.Score
	}{{"fullTime", f.Result.FullTime}, {"halfTime", f.Result.HalfTime}, {"extraTime", f.Result.ExtraTime}, {"penalties", f.Result.Penalties}} {
		if s.score == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, s.key...)
		b = append(b, `":{"home":`...)
		b = strconv.AppendInt(b, int64(s.score.Home), 10)
		b = append(b, `,"away":`...)
		b = strconv.AppendInt(b, int64(s.score.Away), 10)
		b = append(b, '}')
	}
	b = append(b, '}')
	num("minute", f.Minute, true)
	num("injuryTime", f.InjuryTime, true)
	str("awarded", string(f.Awarded), true)
	if o := f.Odds; o != nil {
		b = append(b, `,"odds":{"homeWin":`...)
		b, ok = appendFloat(b, o.HomeWin, ok)
		b = append(b, `,"draw":`...)
		b, ok = appendFloat(b, o.Draw, ok)
		b = append(b, `,"awayWin":`...)
		b, ok = appendFloat(b, o.AwayWin, ok)
		b = append(b, '}')
	}
	str("referee", f.Referee, true)
	str("venue", f.Venue, true)
	str("source", f.Source, true)
	b = append(b, '}', '}')
	return b, ok
}

// plainText reports whether encoding/json writes s as it is: printable
// text without a quote, a backslash or an HTML character, valid UTF-8 (it
// writes an invalid byte as \ufffd) without the line and paragraph
// separators U+2028 and U+2029 (which it escapes). Team names in sources
// are often not ASCII ("1. FC Köln").
func plainText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// appendFloat writes x as encoding/json does within the range it writes
// without an exponent; ok turns false outside it.
func appendFloat(b []byte, x float64, ok bool) ([]byte, bool) {
	if a := math.Abs(x); math.IsNaN(x) || math.IsInf(x, 0) || (a != 0 && (a < 1e-6 || a >= 1e21)) {
		return b, false
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64), ok
}
