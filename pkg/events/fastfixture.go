package events

import (
	"encoding/binary"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/model"
)

// Fixtures are almost every message of the stream, and a replica's start-up
// is mostly spent decoding them: decodeFixture reads exactly the layout
// Encode writes for a fixture, several times faster than encoding/json.
// Anything it does not expect (a field of a newer schema, an escaped
// string, a null) makes it give up, and the caller falls back to
// encoding/json: it is a shortcut, never a second definition of the format.

var errUnexpected = errors.New("unexpected fixture layout")

type scanner struct {
	b []byte
	i int
}

func (s *scanner) expect(c byte) error {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return nil
	}
	return errUnexpected
}

func (s *scanner) peek(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// str reads a string without escapes in one pass: the closing quote is
// found while checking that no byte is a backslash or a control character,
// and only a string with bytes beyond ASCII is checked for valid UTF-8.
func (s *scanner) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	i := s.i
	for ; i+8 <= len(s.b) && plain8(binary.LittleEndian.Uint64(s.b[i:])); i += 8 {
	}
	ascii := true
	for ; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			v := s.b[s.i:i]
			if !ascii && !utf8.Valid(v) {
				return nil, errUnexpected
			}
			s.i = i + 1
			return v, nil
		case c < 0x20 || c == '\\':
			return nil, errUnexpected
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, errUnexpected
}

// plain8 reports whether the eight bytes of w are printable ASCII
// without a quote or a backslash, the bytes a string is mostly made of.
// A byte below 0x20, or equal to a quote or a backslash after an XOR,
// borrows when subtracted from and sets its high bit; the high bit of a
// byte beyond ASCII is set already.
func plain8(w uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	return (w|(w-ones*0x20)|((w^ones*'"')-ones)|((w^ones*'\\')-ones))&high == 0
}

// maxIntDigits is the most digits int accumulates: 18 cannot overflow an
// int64, and a longer integer (none that Encode writes for an id or a
// score) goes to encoding/json.
const maxIntDigits = 18

// int reads an integer in JSON's grammar, -?(0|[1-9][0-9]*), accumulating
// its digits as it goes. A fraction or an exponent, a leading zero or more
// than maxIntDigits digits is unexpected.
func (s *scanner) int() (int, error) {
	i := s.i
	neg := i < len(s.b) && s.b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for ; i < len(s.b); i++ {
		d := s.b[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
	}
	digits := i - start
	if digits == 0 || digits > maxIntDigits || (digits > 1 && s.b[start] == '0') {
		return 0, errUnexpected
	}
	if i < len(s.b) && (s.b[i] == '.' || s.b[i] == 'e' || s.b[i] == 'E') {
		return 0, errUnexpected
	}
	if neg {
		n = -n
	}
	// On a 32-bit platform int is narrower than 18 digits.
	if int64(int(n)) != n {
		return 0, errUnexpected
	}
	s.i = i
	return int(n), nil
}

// number reads a number in JSON's grammar, -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?.
func (s *scanner) number() ([]byte, error) {
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.peek('-') {
		s.i++
	}
	first := s.i
	if n := digits(); n == 0 || (n > 1 && s.b[first] == '0') {
		return nil, errUnexpected
	}
	if s.peek('.') {
		s.i++
		if digits() == 0 {
			return nil, errUnexpected
		}
	}
	if s.peek('e') || s.peek('E') {
		s.i++
		if s.peek('+') || s.peek('-') {
			s.i++
		}
		if digits() == 0 {
			return nil, errUnexpected
		}
	}
	return s.b[start:s.i], nil
}

func (s *scanner) float() (float64, error) {
	tok, err := s.number()
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(string(tok), 64)
}

// object calls field for each key of an object.
func (s *scanner) object(field func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek('}') {
		s.i++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		if s.peek(',') {
			s.i++
			continue
		}
		return s.expect('}')
	}
}

func (s *scanner) score() (*model.Score, error) {
	var sc model.Score
	err := s.object(func(key []byte) error {
		n, err := s.int()
		switch string(key) {
		case "home":
			sc.Home = n
		case "away":
			sc.Away = n
		default:
			return errUnexpected
		}
		return err
	})
	return &sc, err
}

func (s *scanner) fixture(f *model.Fixture) error {
	return s.object(func(key []byte) error {
		var err error
		var v []byte
		switch string(key) {
		case "id", "competitionId", "matchday", "homeTeamId", "awayTeamId", "minute", "injuryTime":
			var n int
			if n, err = s.int(); err == nil {
				setInt(f, string(key), n)
			}
		case "group", "stage", "round", "homePlaceholder", "awayPlaceholder", "status", "awarded", "referee", "venue", "source":
			if v, err = s.str(); err == nil {
				setString(f, string(key), v)
			}
		case "kickoff":
			if v, err = s.str(); err == nil {
				f.Kickoff, err = kickoff(v)
			}
		case "result":
			err = s.object(func(k []byte) error {
				sc, err := s.score()
				switch string(k) {
				case "fullTime":
					f.Result.FullTime = sc
				case "halfTime":
					f.Result.HalfTime = sc
				case "extraTime":
					f.Result.ExtraTime = sc
				case "penalties":
					f.Result.Penalties = sc
				default:
					return errUnexpected
				}
				return err
			})
		case "odds":
			var o model.Odds
			err = s.object(func(k []byte) error {
				x, err := s.float()
				switch string(k) {
				case "homeWin":
					o.HomeWin = x
				case "draw":
					o.Draw = x
				case "awayWin":
					o.AwayWin = x
				default:
					return errUnexpected
				}
				return err
			})
			f.Odds = &o
		default:
			return errUnexpected
		}
		return err
	})
}

// kickoff reads a kickoff time. Encode writes it in UTC with RFC 3339's
// layout, 2006-01-02T15:04:05Z with a fraction of a second if it has
// one: that layout is read by hand (time.Parse was a tenth of the
// shortcut's time), anything else as encoding/json reads a time.
func kickoff(v []byte) (time.Time, error) {
	if t, ok := utcTime(v); ok {
		return t, nil
	}
	var t time.Time
	err := t.UnmarshalText(v)
	return t, err
}

// utcTime reads YYYY-MM-DDTHH:MM:SS(.d{1,9})?Z, the layout RFC3339Nano
// writes for a UTC time, declining any other (an offset, a date that does
// not exist, a leap second) and leaving it to the general parser.
func utcTime(v []byte) (time.Time, bool) {
	const n = len("2006-01-02T15:04:05")
	if len(v) < n+1 || v[len(v)-1] != 'Z' || v[4] != '-' || v[7] != '-' || v[10] != 'T' || v[13] != ':' || v[16] != ':' {
		return time.Time{}, false
	}
	ok := true
	num := func(b []byte) int {
		x := 0
		for _, c := range b {
			d := c - '0'
			ok = ok && d <= 9
			x = x*10 + int(d)
		}
		return x
	}
	year, month, day := num(v[0:4]), num(v[5:7]), num(v[8:10])
	hour, minute, sec := num(v[11:13]), num(v[14:16]), num(v[17:19])
	nsec := 0
	if frac := v[n : len(v)-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		nsec = num(frac[1:])
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if !ok || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	// time.Date carries a day beyond its month into the next: a day that
	// does not exist comes back as another.
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t, t.Day() == day
}

// enum returns the constant spelled v, so that the values every fixture
// repeats are not allocated once per message.
func enum(v []byte) string {
	switch string(v) {
	case "REGULAR":
		return "REGULAR"
	case "PLAYOFF":
		return "PLAYOFF"
	case "FINISHED":
		return "FINISHED"
	case "TIMED":
		return "TIMED"
	case "SCHEDULED":
		return "SCHEDULED"
	case "IN_PLAY":
		return "IN_PLAY"
	case "POSTPONED":
		return "POSTPONED"
	case "CANCELED":
		return "CANCELED"
	case "PAUSED":
		return "PAUSED"
	case "EXTRA_TIME":
		return "EXTRA_TIME"
	case "PENALTY_SHOOTOUT":
		return "PENALTY_SHOOTOUT"
	case "SUSPENDED":
		return "SUSPENDED"
	case "AWARDED":
		return "AWARDED"
	case "HOME_TEAM":
		return "HOME_TEAM"
	case "AWAY_TEAM":
		return "AWAY_TEAM"
	case "DRAW":
		return "DRAW"
	}
	return string(v)
}

func setInt(f *model.Fixture, key string, n int) {
	switch key {
	case "id":
		f.ID = n
	case "competitionId":
		f.CompetitionID = n
	case "matchday":
		f.Matchday = n
	case "homeTeamId":
		f.HomeTeamID = n
	case "awayTeamId":
		f.AwayTeamID = n
	case "minute":
		f.Minute = n
	case "injuryTime":
		f.InjuryTime = n
	}
}

func setString(f *model.Fixture, key string, raw []byte) {
	v := enum(raw)
	switch key {
	case "group":
		f.Group = v
	case "stage":
		f.Stage = model.Stage(v)
	case "round":
		f.Round = v
	case "homePlaceholder":
		f.HomePlaceholder = v
	case "awayPlaceholder":
		f.AwayPlaceholder = v
	case "status":
		f.Status = model.Status(v)
	case "awarded":
		f.Awarded = model.Side(v)
	case "referee":
		f.Referee = v
	case "venue":
		f.Venue = v
	case "source":
		f.Source = v
	}
}

// decodeFixture decodes a fixture message body written by Encode. ok is
// false when the body is not in the expected layout.
func decodeFixture(body []byte) (f model.Fixture, ok bool) {
	s := scanner{b: body}
	if !s.envelope(func() error { return s.fixture(&f) }) {
		return model.Fixture{}, false
	}
	return f, true
}

// envelope reads a whole message body, {"v":…,"data":…}, handing its data
// to data, and reports whether the body is in the expected layout and of
// a schema this code knows.
func (s *scanner) envelope(data func() error) bool {
	version := 0
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "v":
			version, err = s.int()
		case "data":
			err = data()
		default:
			err = errUnexpected
		}
		return err
	})
	return err == nil && s.i == len(s.b) && version >= 1 && version <= SchemaVersion
}
