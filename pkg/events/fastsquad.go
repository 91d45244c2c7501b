package events

import "github.com/footdata/footballd/pkg/model"

// Squads are few beside fixtures but large (a few dozen players each), and
// encoding/json spent more on them than on every other kind but fixtures
// in a replica's start-up (3.4 % of its CPU at 1M fixtures, with the
// validation). decodeSquad reads exactly the layout encoding/json writes
// for a squad's envelope; like decodeFixture it declines anything else (a
// key it does not know, a null where it expects a value, an escaped
// string, white space) and the caller falls back to encoding/json.

// decodeSquad decodes a squad message body; ok is false when the body is
// not in the expected layout.
func decodeSquad(body []byte) (q model.Squad, ok bool) {
	s := scanner{b: body}
	if !s.envelope(func() error { return s.squad(&q) }) {
		return model.Squad{}, false
	}
	return q, true
}

func (s *scanner) squad(q *model.Squad) error {
	players := false
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "teamId":
			q.TeamID, err = s.int()
		case "players":
			// encoding/json decodes a second list into the elements
			// of the first: not a layout Encode writes.
			if players {
				return errUnexpected
			}
			players = true
			q.Players, err = s.players()
		default:
			err = errUnexpected
		}
		return err
	})
}

// players reads a list of players: nil for null (a squad encoded with no
// list), empty but not nil for [], as encoding/json gives.
func (s *scanner) players() ([]model.Player, error) {
	if s.literal("null") {
		return nil, nil
	}
	if err := s.expect('['); err != nil {
		return nil, err
	}
	list := []model.Player{}
	if s.peek(']') {
		s.i++
		return list, nil
	}
	for {
		var p model.Player
		if err := s.player(&p); err != nil {
			return nil, err
		}
		list = append(list, p)
		if s.peek(',') {
			s.i++
			continue
		}
		return list, s.expect(']')
	}
}

// literal consumes lit if it comes next.
func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

func (s *scanner) player(p *model.Player) error {
	text := func() (string, error) {
		v, err := s.str()
		return string(v), err
	}
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "id":
			p.ID, err = s.int()
		case "name":
			p.Name, err = text()
		case "position":
			p.Position, err = text()
		case "nationality":
			p.Nationality, err = text()
		case "jerseyNumber":
			var n int
			n, err = s.int()
			p.JerseyNumber = &n
		case "dateOfBirth", "contractUntil":
			var v string
			v, err = text()
			d := model.Date(v)
			if string(key) == "dateOfBirth" {
				p.DateOfBirth = &d
			} else {
				p.ContractUntil = &d
			}
		case "marketValue":
			var v string
			v, err = text()
			p.MarketValue = &v
		default:
			err = errUnexpected
		}
		return err
	})
}
