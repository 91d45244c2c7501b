package generate

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/footdata/footballd/pkg/model"
)

// kind is how a fixture reaches its final state.
type kind int

const (
	// plain fixtures are published in their final state.
	plain kind = iota
	// live fixtures go TIMED, IN_PLAY at kick-off, a number of running
	// scores, then FINISHED.
	live
	// knockout fixtures are first published with placeholders ("1A",
	// "W49"), then with their teams, IN_PLAY, then FINISHED.
	knockout
)

// fixtureJob is the revisions of one fixture. Revisions are built when
// the fixture is queued; what they need beyond the final state is drawn from
// a generator of their own, seeded with the fixture id, so the world does
// not depend on the order in which the stream acknowledges writes.
type fixtureJob struct {
	final model.Fixture
	kind  kind
	// extra revisions come first: the story's first state with other odds
	// (and, for a result, a wrong score that a later revision corrects).
	extra   int
	updates int // running scores of a live fixture
	// placeholders of a knock-out fixture before its teams are known.
	homePlaceholder, awayPlaceholder string
	seed                             uint64
	goals                            []goal
}

// goal is a goal of a live fixture at a minute.
type goal struct {
	minute int
	home   bool
}

func (j *fixtureJob) storyLen() int {
	switch j.kind {
	case live:
		return j.updates + 3
	case knockout:
		return 4
	}
	return 1
}

// states are the fixture's revisions, oldest first; the editor checks each
// against the one before.
func (j *fixtureJob) states() []model.Fixture {
	out := make([]model.Fixture, 0, j.extra+j.storyLen())
	for i := range j.extra {
		out = append(out, j.variant(i))
	}
	for s := range j.storyLen() {
		out = append(out, j.story(s))
	}
	return out
}

// variant is extra revision i: the story's first state with odds that
// differ from revision to revision.
func (j *fixtureJob) variant(i int) model.Fixture {
	f := j.story(0)
	f.Odds = &model.Odds{HomeWin: round2(1.4 + float64(j.final.ID%97)/50), Draw: round2(3 + 0.05*float64(i+1)),
		AwayWin: round2(1.6 + float64(j.final.ID%89)/40)}
	if i%2 == 0 && f.Result.FullTime != nil {
		wrong := *f.Result.FullTime
		wrong.Home++
		f.Result.FullTime = &wrong
	}
	return f
}

// story returns state s of the fixture's own story; the last is final.
func (j *fixtureJob) story(s int) model.Fixture {
	if s == j.storyLen()-1 {
		return j.final
	}
	f := j.final
	f.Result, f.Awarded = model.Result{}, ""
	switch j.kind {
	case knockout:
		switch s {
		case 0:
			f.Status = model.Timed
			f.HomeTeamID, f.AwayTeamID = 0, 0
			f.HomePlaceholder, f.AwayPlaceholder = j.homePlaceholder, j.awayPlaceholder
		case 1:
			f.Status = model.Timed
		default:
			f.Status = model.InPlay
			f.Result.FullTime = &model.Score{}
		}
	case live:
		if s == 0 {
			f.Status = model.Timed
			return f
		}
		f.Status = model.InPlay
		j.drawGoals()
		// Update u of U is at minute u*90/(U+1); kick-off is update 0.
		u := s - 1
		minute := u * 90 / (j.updates + 1)
		var now, half model.Score
		for _, g := range j.goals {
			if g.minute > minute {
				break
			}
			if g.home {
				now.Home++
			} else {
				now.Away++
			}
			if g.minute <= 45 {
				half = now
			}
		}
		f.Result.FullTime = &now
		if minute > 45 {
			f.Result.HalfTime = &half
		}
		// Live odds follow the running score; the draw's odds grow with
		// every update, so each update is a change of its own.
		lead := float64(now.Home - now.Away)
		f.Odds = &model.Odds{HomeWin: round2(math.Max(1.01, 2.4-0.8*lead)), Draw: round2(1.5 + 0.25*float64(u)),
			AwayWin: round2(math.Max(1.01, 3.1+0.8*lead))}
	}
	return f
}

// drawGoals places the final score's goals at minutes consistent with
// its half-time score.
func (j *fixtureJob) drawGoals() {
	if j.goals != nil {
		return
	}
	r := rand.New(rand.NewPCG(j.seed, uint64(j.final.ID)))
	ft, ht := *j.final.Result.FullTime, *j.final.Result.HalfTime
	j.goals = []goal{}
	add := func(n int, home bool, from, to int) {
		for range n {
			j.goals = append(j.goals, goal{minute: from + r.IntN(to-from+1), home: home})
		}
	}
	add(ht.Home, true, 1, 45)
	add(ht.Away, false, 1, 45)
	add(ft.Home-ht.Home, true, 46, 90)
	add(ft.Away-ht.Away, false, 46, 90)
	slices.SortStableFunc(j.goals, func(a, b goal) int { return a.minute - b.minute })
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
