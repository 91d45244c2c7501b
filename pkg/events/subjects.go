package events

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// Kind is the type of entity a subject holds.
type Kind string

// Entity kinds. Fixture and adjustment subjects carry their competition id
// before their own id, so that one competition's fixtures can be read with
// a single subject filter.
const (
	KindLeague      Kind = "league"
	KindCompetition Kind = "competition"
	KindTeam        Kind = "team"
	KindTeamName    Kind = "teamname"
	KindSquad       Kind = "squad"
	KindFixture     Kind = "fixture"
	KindAdjustment  Kind = "adjustment"
	KindTieBreak    Kind = "tiebreak"
	// KindTieBreakData holds a competition's disciplinary points and
	// coefficient order.
	KindTieBreakData Kind = "tiebreakdata"
	KindClient       Kind = "client"
	KindWebhook      Kind = "webhook"
	// KindFeed holds a source `ingest follow` keeps current.
	KindFeed Kind = "feed"
	// KindPerson holds a scorer or player by id (football.person.<id>).
	KindPerson Kind = "person"
	// Natural keys, claimed by writers: a league's season → its
	// competition (football.competitionkey.<league>.<year>), and the
	// sources of a competition's imported fixtures or adjustments → their
	// ids (football.sourcekeys.<kind>.<competition id>).
	KindCompetitionKey Kind = "competitionkey"
	KindSourceKeys     Kind = "sourcekeys"
	// KindClientToken subjects point a token's hash at its client
	// (football.clienttoken.<sha-256 hex>), for replicas that meet a
	// token before its client (ClientByToken).
	KindClientToken Kind = "clienttoken"
	// KindSequence subjects hold id counters (football.seq.<kind>).
	KindSequence Kind = "seq"
)

// Prefix is the first token of every subject of the stream.
const Prefix = "football"

// Kinds lists the kinds an editor can show.
var Kinds = []Kind{KindLeague, KindCompetition, KindTeam, KindTeamName, KindSquad, KindFixture, KindAdjustment, KindTieBreak, KindTieBreakData,
	KindClient, KindWebhook, KindFeed, KindPerson, KindCompetitionKey, KindSourceKeys}

// ParseKind parses a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", model.Invalidf("kind", s, "must be one of %s", strings.Join(names, ", "))
}

// Subject returns the subject of kind with the given key tokens.
func Subject(kind Kind, key ...string) string {
	return Prefix + "." + string(kind) + "." + strings.Join(key, ".")
}

// All returns the filter matching every subject of kind.
func All(kind Kind) string { return Prefix + "." + string(kind) + ".>" }

func itoa(i int) string { return strconv.Itoa(i) }

// FixtureSubject is Subject(KindFixture, competition, id) built in one
// allocation: the writers name a subject per fixture they write.
func FixtureSubject(competition, id int) string {
	var buf [64]byte
	b := append(buf[:0], Prefix+"."+string(KindFixture)+"."...)
	b = strconv.AppendInt(b, int64(competition), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(id), 10)
	return string(b)
}

// SubjectOf returns the subject that holds v, a model entity.
func SubjectOf(v any) (string, error) {
	switch e := v.(type) {
	case *model.League:
		return Subject(KindLeague, string(e.Code)), nil
	case *model.Competition:
		return Subject(KindCompetition, itoa(e.ID)), nil
	case *model.Team:
		return Subject(KindTeam, itoa(e.ID)), nil
	case *model.TeamName:
		return TeamNameSubject(e.Name), nil
	case *model.Squad:
		return Subject(KindSquad, itoa(e.TeamID)), nil
	case *model.Fixture:
		return FixtureSubject(e.CompetitionID, e.ID), nil
	case *model.Adjustment:
		return Subject(KindAdjustment, itoa(e.CompetitionID), itoa(e.ID)), nil
	case *model.TieBreakOrder:
		return Subject(KindTieBreak, itoa(e.CompetitionID)), nil
	case *model.TieBreakData:
		return Subject(KindTieBreakData, itoa(e.CompetitionID)), nil
	case *model.Client:
		return Subject(KindClient, e.Name), nil
	case *model.ClientToken:
		return Subject(KindClientToken, e.TokenHash), nil
	case *model.Webhook:
		return Subject(KindWebhook, e.Name), nil
	case *model.Feed:
		return Subject(KindFeed, e.Name), nil
	case *model.Person:
		return Subject(KindPerson, itoa(e.ID)), nil
	case *model.CompetitionKey:
		return Subject(KindCompetitionKey, string(e.League), itoa(e.Year)), nil
	case *model.SourceKeys:
		return Subject(KindSourceKeys, e.Kind, itoa(e.CompetitionID)), nil
	}
	return "", fmt.Errorf("no subject for %T", v)
}

// TeamNameSubject returns the subject of a spelling of a team name. The
// normalised name is hex-escaped outside [a-z0-9-] so that any spelling is a
// valid single subject token and two spellings that normalise alike share it.
func TeamNameSubject(name string) string {
	n := model.NormalizeTeamName(name)
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('_')
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return Subject(KindTeamName, b.String())
}

// KeyOf splits a subject into its kind and key tokens.
func KeyOf(subject string) (Kind, []string, bool) {
	parts := strings.Split(subject, ".")
	if len(parts) < 3 || parts[0] != Prefix {
		return "", nil, false
	}
	return Kind(parts[1]), parts[2:], true
}
