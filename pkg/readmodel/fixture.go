package readmodel

import (
	"cmp"
	"math"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// fixture is the compact, immutable form of a model.Fixture that every index
// points to. It holds no pointers, so a million of them cost the garbage
// collector nothing to scan, and it is about 100 bytes where a decoded
// model.Fixture with its strings and scores is several times that. An edit
// makes a new record; a record once published is never written again.
type fixture struct {
	seq uint64 // stream sequence of the event that made this record
	// gen is the publication that first shows the record: the writer
	// tells its own records from those readers hold.
	gen     uint64
	kickoff int64 // Unix seconds: the API shows no fractions
	odds    [3]float64
	id      int32
	comp    int32
	home    int32
	away    int32
	// Rarely set strings, interned once per model (see interner).
	group, round, homePlaceholder, awayPlaceholder uint32
	matchday                                       uint8
	status                                         uint8
	playoff                                        bool
	awarded                                        uint8
	hasOdds                                        bool
	// minute and injuryTime are a live match's (model: 0 to 120, 0 to 30).
	minute, injuryTime                       uint8
	fullTime, halfTime, extraTime, penalties score8
}

// score8 is a score that fits the model's 0..99 goals; noScore marks none.
type score8 [2]int8

var noScore = score8{-1, -1}

func packScore(s *model.Score) score8 {
	if s == nil {
		return noScore
	}
	return score8{int8(s.Home), int8(s.Away)}
}

func (s score8) known() bool { return s[0] >= 0 }

// scores hands out the scores of the fixtures of one answer from a few
// shared arrays instead of one allocation per score: a list of hundreds of
// fixtures costs a handful of allocations. Each score is still its own
// variable, so callers may change them.
type scores []model.Score

func (a *scores) unpack(s score8) *model.Score {
	if !s.known() {
		return nil
	}
	if len(*a) == cap(*a) {
		// Small for a single fixture, larger once a list shows.
		*a = make([]model.Score, 0, min(64, 2*cap(*a)+2))
	}
	*a = append(*a, model.Score{Home: int(s[0]), Away: int(s[1])})
	return &(*a)[len(*a)-1]
}

// statusCode numbers the statuses from 1 so that 0 never passes for one;
// a switch, because a map lookup per fixture shows in the replay's profile.
// The codes index statuses.
func statusCode(s model.Status) uint8 {
	switch s {
	case model.Scheduled:
		return 1
	case model.Timed:
		return 2
	case model.InPlay:
		return 3
	case model.Finished:
		return finishedCode
	case model.Postponed:
		return 5
	case model.Canceled:
		return 6
	case model.Paused:
		return 7
	case model.ExtraTime:
		return 8
	case model.PenaltyShootout:
		return 9
	case model.Suspended:
		return 10
	case model.AwardedStatus:
		return awardedCode
	}
	return 0
}

const (
	finishedCode = 4
	awardedCode  = 11
)

var statuses = [...]model.Status{"", model.Scheduled, model.Timed, model.InPlay, model.Finished, model.Postponed, model.Canceled,
	model.Paused, model.ExtraTime, model.PenaltyShootout, model.Suspended, model.AwardedStatus}

func (f *fixture) modelStatus() model.Status { return statuses[f.status] }

// finished is Status.HasResult on the compact form: the fixture counts in
// tables and head-to-heads.
func (f *fixture) finished() bool { return f.status == finishedCode || f.status == awardedCode }

// countsForCalendar reports whether the fixture is a real date on the
// calendar of its competition: postponed and cancelled games are not.
func (f *fixture) countsForCalendar() bool {
	s := f.modelStatus()
	return s != model.Postponed && s != model.Canceled
}

func sideCode(s model.Side) uint8 {
	switch s {
	case model.Home:
		return 1
	case model.Away:
		return 2
	case model.Draw:
		return 3
	}
	return 0
}

var sides = [...]model.Side{"", model.Home, model.Away, model.Draw}

// outcome is Fixture.Outcome on the compact form.
func (f *fixture) outcome() (model.Side, bool) {
	if !f.finished() {
		return "", false
	}
	if f.awarded != 0 {
		return sides[f.awarded], true
	}
	if !f.fullTime.known() {
		return "", false
	}
	switch {
	case f.fullTime[0] > f.fullTime[1]:
		return model.Home, true
	case f.fullTime[0] < f.fullTime[1]:
		return model.Away, true
	}
	return model.Draw, true
}

// goals returns the full-time goals, 0-0 when an awarded result has none.
func (f *fixture) goals() (home, away int32) {
	if !f.fullTime.known() {
		return 0, 0
	}
	return int32(f.fullTime[0]), int32(f.fullTime[1])
}

func (f *fixture) time() time.Time { return time.Unix(f.kickoff, 0).UTC() }

// day is the UTC calendar day of the kick-off, counted from 1970-01-01.
func (f *fixture) day() int32 { return dayOf(f.kickoff) }

func dayOf(unix int64) int32 {
	d := unix / secondsPerDay
	if unix%secondsPerDay < 0 {
		d--
	}
	return int32(d)
}

const secondsPerDay = 24 * 60 * 60

// byDate is the date order of every fixture list: kick-off, then id so
// that the order is total.
func byDate(a, b *fixture) int {
	if c := cmp.Compare(a.kickoff, b.kickoff); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// fitsInt32 reports whether an id can be held as an int32.
func fitsInt32(id int) bool { return id >= math.MinInt32 && id <= math.MaxInt32 }

// pack makes the compact record of a validated fixture.
func pack(f *model.Fixture, seq uint64, gen uint64, strs *interner) *fixture {
	r := &fixture{
		seq:             seq,
		gen:             gen,
		kickoff:         f.Kickoff.Unix(),
		id:              int32(f.ID),
		comp:            int32(f.CompetitionID),
		home:            int32(f.HomeTeamID),
		away:            int32(f.AwayTeamID),
		group:           strs.intern(f.Group),
		round:           strs.intern(f.Round),
		homePlaceholder: strs.intern(f.HomePlaceholder),
		awayPlaceholder: strs.intern(f.AwayPlaceholder),
		matchday:        uint8(f.Matchday),
		status:          statusCode(f.Status),
		playoff:         f.Stage == model.Playoff,
		awarded:         sideCode(f.Awarded),
		minute:          uint8(f.Minute),
		injuryTime:      uint8(f.InjuryTime),
		fullTime:        packScore(f.Result.FullTime),
		halfTime:        packScore(f.Result.HalfTime),
		extraTime:       packScore(f.Result.ExtraTime),
		penalties:       packScore(f.Result.Penalties),
	}
	if f.Odds != nil {
		r.hasOdds = true
		r.odds = [3]float64{f.Odds.HomeWin, f.Odds.Draw, f.Odds.AwayWin}
	}
	return r
}

// unpack rebuilds the model fixture, without the importer's Source, which
// the read model does not keep: no API representation shows it.
func (f *fixture) unpack(strs []string, sc *scores) model.Fixture {
	stage := model.Regular
	if f.playoff {
		stage = model.Playoff
	}
	m := model.Fixture{
		ID:              int(f.id),
		CompetitionID:   int(f.comp),
		Matchday:        int(f.matchday),
		Group:           strs[f.group],
		Stage:           stage,
		Round:           strs[f.round],
		Kickoff:         f.time(),
		HomeTeamID:      int(f.home),
		AwayTeamID:      int(f.away),
		HomePlaceholder: strs[f.homePlaceholder],
		AwayPlaceholder: strs[f.awayPlaceholder],
		Status:          f.modelStatus(),
		Result: model.Result{
			FullTime:  sc.unpack(f.fullTime),
			HalfTime:  sc.unpack(f.halfTime),
			ExtraTime: sc.unpack(f.extraTime),
			Penalties: sc.unpack(f.penalties),
		},
		Awarded:    sides[f.awarded],
		Minute:     int(f.minute),
		InjuryTime: int(f.injuryTime),
	}
	if f.hasOdds {
		m.Odds = &model.Odds{HomeWin: f.odds[0], Draw: f.odds[1], AwayWin: f.odds[2]}
	}
	return m
}

// interner stores each distinct rare string (group, round, placeholder)
// once. The list only grows, so a published prefix of it never changes:
// readers index a slice header taken at publication while the writer appends
// beyond its length.
type interner struct {
	list  []string
	index map[string]uint32
}

func newInterner() interner {
	return interner{list: []string{""}, index: map[string]uint32{"": 0}}
}

func (in *interner) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	if i, ok := in.index[s]; ok {
		return i
	}
	i := uint32(len(in.list))
	in.list = append(in.list, s)
	in.index[s] = i
	return i
}
