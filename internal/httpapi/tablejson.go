package httpapi

import (
	"encoding/json"
	"strconv"

	"github.com/footdata/footballd/pkg/readmodel"
)

// jsonAppender is a rendered value that writes its own JSON, the same
// bytes encoding/json would write for the shape the API documents
// (TestTableJSONMatchesEncodingJSON checks it), without reflection. A
// league table is the response most often rendered afresh (every result
// changes it), and reflection was half of the cost of rendering one.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

func (t *leagueTable) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if t.full {
		b = append(b, `"_links":{"self":{"href":`...)
		b = append(t.appendCompetition(b), "/leagueTable/"...)
		if t.view.Matchday > 0 {
			b = strconv.AppendInt(append(b, "?matchday="...), int64(t.view.Matchday), 10)
		}
		b = append(b, `"},"competition":{"href":`...)
		b = append(t.appendCompetition(b), `"}},`...)
	}
	b = append(b, `"leagueCaption":`...)
	b = appendString(b, t.view.Caption)
	b = append(b, `,"matchday":`...)
	if t.view.Matchday == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(t.view.Matchday), 10)
	}
	b = append(b, `,"standing":[`...)
	first := true
	v := &t.view
	for i := range v.Standings() {
		for k := range v.Len(i) {
			if !first {
				b = append(b, ',')
			}
			first = false
			r := v.RowView(i, k)
			if t.full {
				b = t.appendFullRow(b, r)
			} else {
				b = appendMinifiedRow(b, r)
			}
		}
	}
	return append(b, "]}"...)
}

// appendCompetition opens the competition's link (links.competition)
// without closing its quote: the pieces need no escaping but the base,
// which is escaped once, and escaping a string piece by piece gives what
// escaping it whole does when the pieces are cut at ASCII characters.
func (t *leagueTable) appendCompetition(b []byte) []byte {
	b = append(append(append(append(b, '"'), t.base...), '/'), t.comp...)
	return strconv.AppendInt(append(b, '/'), int64(t.id), 10)
}

// appendFullRow writes the full form of a row, renderFullRow's shape.
func (t *leagueTable) appendFullRow(b []byte, r readmodel.RowView) []byte {
	b = append(append(b, `{"_links":{"team":{"href":"`...), t.base...)
	b = appendDigits(append(b, "/teams/"...), r.TeamID())
	b = appendDigits(append(b, `"}},"position":`...), r.Position())
	b = appendDigits(append(b, `,"rank":`...), r.Rank())
	b = append(b, `,"team":`...)
	b = appendString(b, shortName(r.ShortName(), r.TeamName()))
	b = appendDigits(append(b, `,"teamId":`...), r.TeamID())
	b = append(b, `,"teamName":`...)
	b = appendString(b, r.TeamName())
	b = appendCrest(append(b, `,"crestURI":`...), r.CrestURL())
	b = appendDigits(append(b, `,"playedGames":`...), r.PlayedGames())
	b = appendDigits(append(b, `,"points":`...), r.Points())
	b = appendDigits(append(b, `,"goals":`...), r.Goals())
	b = appendDigits(append(b, `,"goalsAgainst":`...), r.GoalsAgainst())
	b = appendDigits(append(b, `,"goalDifference":`...), r.GoalDifference())
	b = appendDigits(append(b, `,"wins":`...), r.Wins())
	b = appendDigits(append(b, `,"draws":`...), r.Draws())
	b = appendDigits(append(b, `,"losses":`...), r.Losses())
	b = appendSplit(append(b, `,"home":`...), r.Home())
	b = appendSplit(append(b, `,"away":`...), r.Away())
	return append(b, '}')
}

func appendSplit(b []byte, s readmodel.Split) []byte {
	b = appendDigits(append(b, `{"goals":`...), s.Goals)
	b = appendDigits(append(b, `,"goalsAgainst":`...), s.GoalsAgainst)
	b = appendDigits(append(b, `,"wins":`...), s.Wins)
	b = appendDigits(append(b, `,"draws":`...), s.Draws)
	b = appendDigits(append(b, `,"losses":`...), s.Losses)
	return append(b, '}')
}

// appendMinifiedRow writes the minified form of a row.
func appendMinifiedRow(b []byte, r readmodel.RowView) []byte {
	b = appendDigits(append(b, `{"rank":`...), r.Rank())
	b = append(b, `,"team":`...)
	b = appendString(b, shortName(r.ShortName(), r.TeamName()))
	b = appendDigits(append(b, `,"teamId":`...), r.TeamID())
	b = appendDigits(append(b, `,"playedGames":`...), r.PlayedGames())
	b = appendCrest(append(b, `,"crestURI":`...), r.CrestURL())
	b = appendDigits(append(b, `,"points":`...), r.Points())
	b = appendDigits(append(b, `,"goals":`...), r.Goals())
	b = appendDigits(append(b, `,"goalsAgainst":`...), r.GoalsAgainst())
	b = appendDigits(append(b, `,"goalDifference":`...), r.GoalDifference())
	return append(b, '}')
}

// appendDigits writes v. A table's figures are nearly all below 1000
// and are written here digit by digit: strconv's general path was a sixth
// of the cost of encoding a table. Callers append the key before it
// themselves, where it is a constant the compiler copies without a call.
func appendDigits(b []byte, v int) []byte {
	if v < 0 && v > -1000 {
		b, v = append(b, '-'), -v
	}
	switch {
	case v < 0 || v >= 1000:
		return strconv.AppendInt(b, int64(v), 10)
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		return append(b, byte('0'+v/10), byte('0'+v%10))
	}
	return append(b, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
}

// appendString writes s as encoding/json does: printable ASCII other than
// the characters it escapes (" \ < > &) as it is, anything else through
// encoding/json itself, so that the bytes are always the same as its.
// appendCrest writes a crest's URL, or null when there is none: one rule
// for an absent crest in every representation (crest, v1-notes.md).
func appendCrest(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendString(b, s)
}

func appendString(b []byte, s string) []byte {
	if !jsonPlainString(s) {
		raw, _ := json.Marshal(s) // a string always encodes
		return append(b, raw...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// jsonPlainString reports whether encoding/json writes s as it is, quoted.
func jsonPlainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			return false
		}
	}
	return true
}

// jsonPlain tells the bytes appendString writes as they are: one look-up a
// byte instead of six comparisons, for the names and crests of every row
// of a table rendered afresh.
var jsonPlain = func() (t [256]bool) {
	for c := byte(0x20); c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
