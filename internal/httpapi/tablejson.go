package httpapi

import (
	"encoding/json"
	"strconv"
)

// jsonAppender is a rendered value that writes its own JSON, the same
// bytes encoding/json would write (TestTableJSONMatchesEncodingJSON checks
// it), without reflection. A league table is the response most often
// rendered afresh (every result changes it), and reflection was half of
// the cost of rendering one.
type jsonAppender interface {
	appendJSON(b []byte) ([]byte, error)
}

func (t leagueTableJSON) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	if t.Links != nil {
		b = append(b, `"_links":{"self":{"href":`...)
		b = appendString(b, t.Links.Self.Href)
		b = append(b, `},"competition":{"href":`...)
		b = appendString(b, t.Links.Competition.Href)
		b = append(b, `}},`...)
	}
	b = append(b, `"leagueCaption":`...)
	b = appendString(b, t.LeagueCaption)
	b = append(b, `,"matchday":`...)
	if t.Matchday == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*t.Matchday), 10)
	}
	b = append(b, `,"standing":`...)
	if t.Standing == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, r := range t.Standing {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			switch r := r.(type) {
			case rowFull:
				b = r.appendJSON(b)
			case rowMinified:
				b = r.appendJSON(b)
			default:
				var raw []byte
				raw, err = json.Marshal(r)
				b = append(b, raw...)
			}
			if err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func (r rowFull) appendJSON(b []byte) []byte {
	b = append(b, `{"_links":{"team":{"href":`...)
	b = appendString(b, r.Links.Team.Href)
	b = appendInt(b, `}},"position":`, r.Position)
	b = appendInt(b, `,"rank":`, r.Rank)
	b = append(b, `,"team":`...)
	b = appendString(b, r.Team)
	b = appendInt(b, `,"teamId":`, r.TeamID)
	b = append(b, `,"teamName":`...)
	b = appendString(b, r.TeamName)
	b = append(b, `,"crestURI":`...)
	b = appendString(b, r.CrestURI)
	b = appendInt(b, `,"playedGames":`, r.PlayedGames)
	b = appendInt(b, `,"points":`, r.Points)
	b = appendInt(b, `,"goals":`, r.Goals)
	b = appendInt(b, `,"goalsAgainst":`, r.GoalsAgainst)
	b = appendInt(b, `,"goalDifference":`, r.GoalDifference)
	b = appendInt(b, `,"wins":`, r.Wins)
	b = appendInt(b, `,"draws":`, r.Draws)
	b = appendInt(b, `,"losses":`, r.Losses)
	b = r.Home.appendJSON(append(b, `,"home":`...))
	b = r.Away.appendJSON(append(b, `,"away":`...))
	return append(b, '}')
}

func (s splitJSON) appendJSON(b []byte) []byte {
	b = appendInt(b, `{"goals":`, s.Goals)
	b = appendInt(b, `,"goalsAgainst":`, s.GoalsAgainst)
	b = appendInt(b, `,"wins":`, s.Wins)
	b = appendInt(b, `,"draws":`, s.Draws)
	b = appendInt(b, `,"losses":`, s.Losses)
	return append(b, '}')
}

func (r rowMinified) appendJSON(b []byte) []byte {
	b = appendInt(b, `{"rank":`, r.Rank)
	b = append(b, `,"team":`...)
	b = appendString(b, r.Team)
	b = appendInt(b, `,"teamId":`, r.TeamID)
	b = appendInt(b, `,"playedGames":`, r.PlayedGames)
	b = append(b, `,"crestURI":`...)
	b = appendString(b, r.CrestURI)
	b = appendInt(b, `,"points":`, r.Points)
	b = appendInt(b, `,"goals":`, r.Goals)
	b = appendInt(b, `,"goalsAgainst":`, r.GoalsAgainst)
	b = appendInt(b, `,"goalDifference":`, r.GoalDifference)
	return append(b, '}')
}

func appendInt(b []byte, key string, v int) []byte {
	return strconv.AppendInt(append(b, key...), int64(v), 10)
}

// appendString writes s as encoding/json does: printable ASCII other than
// the characters it escapes (" \ < > &) as it is, anything else through
// encoding/json itself, so that the bytes are always the same as its.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // a string always encodes
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
