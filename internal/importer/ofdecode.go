package importer

import (
	"strings"
	"unicode/utf8"
)

// decodeOfFile reads an openfootball file as json.Unmarshal into an
// ofFile would, without reflection: decoding was as much of an import's
// CPU as writing the fixtures. It takes the files as openfootball writes
// them and reports false on anything else (an escape in a string, a null,
// a team given as an object, a key twice or in other letter case, a
// number that is not a plain integer, malformed JSON): the caller then
// decodes with encoding/json, whose results and errors are the reference
// (TestDecodeOfFileIsUnmarshal compares the two on every real file).
func decodeOfFile(b []byte) (ofFile, bool) {
	d := ofDecoder{b: b}
	var f ofFile
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return d.str(&f.Name)
		case "matches":
			return d.matches(&f.Matches)
		case "rounds":
			f.Rounds = []ofRound{}
			return d.array(func() bool {
				f.Rounds = append(f.Rounds, ofRound{})
				r := &f.Rounds[len(f.Rounds)-1]
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "name":
						return d.str(&r.Name)
					case "matches":
						return d.matches(&r.Matches)
					}
					return d.other(key, "name", "matches")
				})
			})
		}
		return d.other(key, "name", "matches", "rounds")
	})
	d.space()
	return f, ok && d.i == len(d.b)
}

// ofDecoder is a position in a file being decoded.
type ofDecoder struct {
	b []byte
	i int
}

func (d *ofDecoder) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\n' || d.b[d.i] == '\r' || d.b[d.i] == '\t') {
		d.i++
	}
}

// next skips white space and reports whether the next byte is c, taking
// it if so.
func (d *ofDecoder) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads an object, calling field for each key with the position
// at its value; a key seen twice is not handled (encoding/json merges).
func (d *ofDecoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	var seenBuf [16][]byte
	seen := seenBuf[:0]
	for {
		key, ok := d.raw()
		if !ok || !d.next(':') {
			return false
		}
		for _, k := range seen {
			if string(k) == string(key) {
				return false
			}
		}
		seen = append(seen, key)
		if !field(key) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// array reads an array, calling elem at each element.
func (d *ofDecoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// str reads a string without escapes.
func (d *ofDecoder) str(s *string) bool {
	raw, ok := d.raw()
	if ok {
		*s = string(raw)
	}
	return ok
}

// raw reads a string without escapes, as its bytes in the file (keys are
// compared, not kept).
func (d *ofDecoder) raw() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			raw := d.b[start:d.i]
			d.i++
			return raw, utf8.Valid(raw)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// ints reads an array of plain integers (a score: two, the room made
// at once).
func (d *ofDecoder) ints(out *[]int) bool {
	*out = make([]int, 0, 2)
	return d.array(func() bool {
		n, ok := d.int()
		*out = append(*out, n)
		return ok
	})
}

// int reads a plain integer; its text is d.b[start:d.i] after.
func (d *ofDecoder) int() (int, bool) {
	d.space()
	start, neg := d.i, d.i < len(d.b) && d.b[d.i] == '-'
	if neg {
		d.i++
	}
	n, digits := 0, 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = 10*n + int(d.b[d.i]-'0')
		d.i++
		digits++
	}
	// A leading zero, a fraction or an exponent, or a number too
	// long to be a score: encoding/json decides.
	if digits == 0 || digits > 9 || (digits > 1 && d.b[start+btoi(neg)] == '0') ||
		(d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E')) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// boolean reads true or false.
func (d *ofDecoder) boolean(b *bool) bool {
	d.space()
	for _, lit := range []string{"true", "false"} {
		if strings.HasPrefix(string(d.b[d.i:min(d.i+len(lit), len(d.b))]), lit) {
			d.i += len(lit)
			*b = lit == "true"
			return true
		}
	}
	return false
}

// goals reads a list of goals (a match's goals1 or goals2).
func (d *ofDecoder) goals(out *[]ofGoal) bool {
	*out = []ofGoal{}
	return d.array(func() bool {
		*out = append(*out, ofGoal{})
		g := &(*out)[len(*out)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "name":
				return d.str(&g.Name)
			case "minute":
				d.space()
				if d.i < len(d.b) && d.b[d.i] == '"' {
					return d.str((*string)(&g.Minute))
				}
				start := d.i
				_, ok := d.int()
				g.Minute = ofMinute(d.b[start:d.i])
				return ok
			case "offset":
				n, ok := d.int()
				g.Offset = n
				return ok
			case "penalty":
				return d.boolean(&g.Penalty)
			case "owngoal":
				return d.boolean(&g.OwnGoal)
			}
			return d.other(key, "name", "minute", "offset", "penalty", "owngoal")
		})
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (d *ofDecoder) matches(out *[]ofMatch) bool {
	*out = []ofMatch{}
	return d.array(func() bool {
		*out = append(*out, ofMatch{})
		m := &(*out)[len(*out)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "round":
				return d.str(&m.Round)
			case "date":
				return d.str(&m.Date)
			case "time":
				return d.str(&m.Time)
			case "team1":
				return d.str((*string)(&m.Team1))
			case "team2":
				return d.str((*string)(&m.Team2))
			case "group":
				return d.str(&m.Group)
			case "stage":
				return d.str(&m.Stage)
			case "status":
				return d.str(&m.Status)
			case "ground":
				return d.str(&m.Ground)
			case "goals1":
				return d.goals(&m.Goals1)
			case "goals2":
				return d.goals(&m.Goals2)
			case "score":
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "ft":
						return d.ints(&m.Score.FT)
					case "ht":
						return d.ints(&m.Score.HT)
					case "et":
						return d.ints(&m.Score.ET)
					case "p":
						return d.ints(&m.Score.P)
					}
					return d.other(key, "ft", "ht", "et", "p")
				})
			}
			return d.other(key, "round", "date", "time", "team1", "team2", "group", "stage", "status", "score", "ground", "goals1", "goals2")
		})
	})
}

// other skips the value of a key that is none of known; a key that is one
// of them in other letter case (which encoding/json would take) is not
// handled.
func (d *ofDecoder) other(key []byte, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(string(key), k) {
			return false
		}
	}
	return d.skip()
}

// skip passes over a string, an array or object of them, a boolean or a
// plain integer: the values openfootball files have beside those decoded
// (the World Cup 2026 file numbers its knock-out matches).
func (d *ofDecoder) skip() bool {
	d.space()
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(func([]byte) bool { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == '"':
		_, ok := d.raw()
		return ok
	case c == 't' || c == 'f':
		var b bool
		return d.boolean(&b)
	case c == '-' || c >= '0' && c <= '9':
		_, ok := d.int()
		return ok
	}
	return false
}
