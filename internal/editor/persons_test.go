package editor_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestPersonRules resolves scorers' names, team by team, against the
// persons the stream holds and those met before, and checks which names
// are one person, the name each person is stored under, and the warnings.
func TestPersonRules(t *testing.T) {
	const england, france = 1, 2
	type name struct {
		team int
		name string
	}
	tests := []struct {
		name string
		// stored are persons in the stream before (ids from 1000).
		stored []model.Person
		// squad are players of England's squad (ids from 500).
		squad []string
		names []name
		// same are groups of names (indexes into names) that must be
		// one person each; names in no group are persons of their own.
		same [][]int
		// called are the names the persons are stored under.
		called []string
		warn   string // a word of the one warning, "" for none
	}{
		{name: "surname after full name", names: []name{{england, "Harry Kane"}, {england, "Kane"}},
			same: [][]int{{0, 1}}, called: []string{"Harry Kane"}},
		{name: "full name after surname: the fuller spelling names him", names: []name{{england, "Kane"}, {england, "Harry Kane"}},
			same: [][]int{{0, 1}}, called: []string{"Harry Kane"}},
		{name: "initial and surname", names: []name{{england, "Mohamed Salah"}, {england, "M. Salah"}, {england, "L. Suárez"}, {england, "Luis Suárez"}},
			same: [][]int{{0, 1}, {2, 3}}, called: []string{"Mohamed Salah", "Luis Suárez"}},
		{name: "another initial is another player", names: []name{{england, "Eden Hazard"}, {england, "T. Hazard"}},
			called: []string{"Eden Hazard", "T. Hazard"}},
		{name: "two surnames of one", names: []name{{england, "Virgil van Dijk"}, {england, "Van Dijk"}},
			same: [][]int{{0, 1}}, called: []string{"Virgil van Dijk"}},
		{name: "case and punctuation are no difference", names: []name{{england, "Son Heung-min"}, {england, "SON HEUNG MIN"}},
			same: [][]int{{0, 1}}, called: []string{"Son Heung-min"}},
		{name: "accents are", names: []name{{france, "Mbappé"}, {france, "Mbappe"}, {france, "Kylian Mbappé"}},
			same: [][]int{{0, 2}}, called: []string{"Kylian Mbappé", "Mbappe"}},
		{name: "one name in two teams is two persons", names: []name{{england, "Kane"}, {france, "Kane"}},
			called: []string{"Kane", "Kane"}},
		{name: "a generational suffix is no part of the surname", names: []name{{england, "Neymar"}, {england, "Neymar Jr"}, {france, "Vinícius Jr."}, {france, "Vinícius"}},
			same: [][]int{{0, 1}, {2, 3}}, called: []string{"Neymar Jr", "Vinícius Jr."}},
		{name: "a surname two players share is a person of its own", names: []name{{england, "Eden Hazard"}, {england, "Thorgan Hazard"}, {england, "Hazard"}, {england, "Hazard"}},
			same: [][]int{{2, 3}}, called: []string{"Eden Hazard", "Thorgan Hazard", "Hazard"}, warn: "Eden Hazard"},
		{name: "a full name two short forms fit is a person of its own",
			stored: []model.Person{{Name: "Costa", TeamID: england}, {Name: "D. Costa", TeamID: england}},
			names:  []name{{england, "Diego Costa"}}, called: []string{"Costa", "D. Costa", "Diego Costa"}, warn: "D. Costa"},
		{name: "stored persons and their aliases", stored: []model.Person{{Name: "Harry Kane", TeamID: england, Aliases: []string{"H. Kane"}}},
			names: []name{{england, "H. Kane"}, {england, "Kane"}}, same: [][]int{{0, 1}}, called: []string{"Harry Kane"}},
		{name: "a squad's player is the person", squad: []string{"Harry Kane", "Jude Bellingham"},
			names: []name{{england, "Kane"}, {england, "Bellingham"}}, called: []string{"Harry Kane", "Jude Bellingham"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := ctxT(t)
			s := natstest.MustOpen(t, natstest.MustStart(t))
			natstest.PutNew(t, s, &model.Team{ID: england, Name: "England"}, &model.Team{ID: france, Name: "France"})
			for i, p := range tt.stored {
				p.ID = 1000 + i
				natstest.Put(t, s, &p)
			}
			if len(tt.squad) > 0 {
				sq := model.Squad{TeamID: england}
				for i, n := range tt.squad {
					sq.Players = append(sq.Players, model.Player{ID: 500 + i, Name: n})
				}
				natstest.Put(t, s, &sq)
			}
			ed := natstest.Editor(t, s)
			ps, err := ed.Persons(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.names {
				if err := ps.Resolve(n.team, n.name); err != nil {
					t.Fatal(err)
				}
			}
			warnings := ps.Warnings()
			if _, err := ps.Save(ctx); err != nil {
				t.Fatal(err)
			}
			ids := make([]int, len(tt.names))
			for i, n := range tt.names {
				if ids[i] = ps.ID(n.team, n.name); ids[i] == 0 {
					t.Fatalf("%q: no id", n.name)
				}
			}
			group := map[int]int{} // name index → group
			for g, idx := range tt.same {
				for _, i := range idx {
					group[i] = g + 1
				}
			}
			for i := range ids {
				for j := i + 1; j < len(ids); j++ {
					sameGroup := group[i] != 0 && group[i] == group[j]
					if (ids[i] == ids[j]) != sameGroup {
						t.Errorf("%q is %d, %q is %d: one person %v, want %v", tt.names[i].name, ids[i], tt.names[j].name, ids[j], ids[i] == ids[j], sameGroup)
					}
				}
			}
			stored := natstest.All[model.Person](t, s, events.KindPerson)
			var called []string
			for _, p := range stored {
				called = append(called, p.Name)
			}
			want := slices.Clone(tt.called)
			slices.Sort(called)
			slices.Sort(want)
			if !slices.Equal(called, want) {
				t.Errorf("persons stored: %q, want %q", called, want)
			}
			for i, id := range ids {
				p, ok := stored[events.Subject(events.KindPerson, strconv.Itoa(id))]
				if !ok || p.ID != id {
					t.Errorf("%q: person %d not stored", tt.names[i].name, id)
					continue
				}
				if spelled := p.Name == tt.names[i].name || slices.Contains(p.Aliases, tt.names[i].name) ||
					model.NormalizePersonName(p.Name) == model.NormalizePersonName(tt.names[i].name); !spelled {
					t.Errorf("%q resolved to %+v, which has no such spelling", tt.names[i].name, p)
				}
				if tt.squad != nil && (id < 500 || id >= 500+len(tt.squad)) {
					t.Errorf("%q: id %d, not a squad player's", tt.names[i].name, id)
				}
			}
			switch {
			case tt.warn == "" && len(warnings) > 0:
				t.Errorf("warnings: %q", warnings)
			case tt.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.warn)):
				t.Errorf("warnings: %q, want one naming %q", warnings, tt.warn)
			}

			// A second writer, as a second import, resolves every
			// name to the same person and changes nothing.
			again, err := natstest.Editor(t, s).Persons(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range tt.names {
				if err := again.Resolve(n.team, n.name); err != nil {
					t.Fatal(err)
				}
				if got := again.ID(n.team, n.name); got != ids[i] {
					t.Errorf("again, %q is %d, was %d", n.name, got, ids[i])
				}
			}
			if chs, err := again.Save(ctx); err != nil || len(chs) != 0 {
				t.Errorf("again, saved %v (%v)", chs, err)
			}
		})
	}
}

// TestSquadPlayersArePersons puts a squad: its players are persons under
// their players' ids, a scorer's short name finds the player, and putting
// the squad again keeps the spelling the scorer added.
func TestSquadPlayersArePersons(t *testing.T) {
	ctx := ctxT(t)
	s := natstest.MustOpen(t, natstest.MustStart(t))
	natstest.PutNew(t, s, &model.Team{ID: 1, Name: "England"})
	ed := natstest.Editor(t, s)
	squad := model.Squad{TeamID: 1, Players: []model.Player{{Name: "Harry Kane", Position: "Offence", Nationality: "England"}, {Name: "Jude Bellingham"}}}
	if _, err := ed.PutSquad(ctx, squad); err != nil {
		t.Fatal(err)
	}
	stored, _, err := events.Load[model.Squad](ctx, s, events.Subject(events.KindSquad, "1"))
	if err != nil {
		t.Fatal(err)
	}
	persons := natstest.All[model.Person](t, s, events.KindPerson)
	for _, pl := range stored.Players {
		p := persons[events.Subject(events.KindPerson, strconv.Itoa(pl.ID))]
		if p.ID != pl.ID || p.Name != pl.Name || p.TeamID != 1 || p.Position != pl.Position || p.Nationality != pl.Nationality {
			t.Errorf("player %+v is person %+v", pl, p)
		}
	}
	if len(persons) != len(stored.Players) {
		t.Errorf("%d persons for %d players", len(persons), len(stored.Players))
	}
	ps, err := ed.Persons(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Resolve(1, "Kane"); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.Save(ctx); err != nil {
		t.Fatal(err)
	}
	kane := stored.Players[0].ID
	if got := ps.ID(1, "Kane"); got != kane {
		t.Fatalf("Kane is %d, want Harry Kane's %d", got, kane)
	}
	if _, err := ed.PutSquad(ctx, squad); err != nil {
		t.Fatal(err)
	}
	p, _, err := events.Load[model.Person](ctx, s, events.Subject(events.KindPerson, strconv.Itoa(kane)))
	if err != nil || p.Name != "Harry Kane" || !slices.Equal(p.Aliases, []string{"Kane"}) {
		t.Errorf("after the squad again: %+v (%v)", p, err)
	}
}

// TestResolveRefusesNoName: a scorer's name must be one.
func TestResolveRefusesNoName(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ps, err := natstest.Editor(t, s).Persons(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "  ", "?", "Ka\u200bne", strings.Repeat("x", model.MaxName+1)} {
		err := ps.Resolve(1, name)
		if model.ErrorCode(err) != model.Invalid {
			t.Errorf("%q: %v, want invalid", name, err)
		}
	}
}

// TestRacingPersons: two writers that read the persons before either
// wrote meet the same new names; each name ends as one person, whose id
// both writers give it, with the spellings both added.
func TestRacingPersons(t *testing.T) {
	ctx := ctxT(t)
	s := natstest.MustOpen(t, natstest.MustStart(t))
	natstest.PutNew(t, s, &model.Team{ID: 1, Name: "England"})
	var writers []*editor.Persons
	for range 2 {
		ps, err := natstest.Editor(t, s).Persons(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writers = append(writers, ps)
	}
	names := [][]string{{"Harry Kane", "John Stones"}, {"Harry Kane", "Kane", "John Stones"}}
	for i, ps := range writers {
		for _, n := range names[i] {
			if err := ps.Resolve(1, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ps := range writers {
		if _, err := ps.Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"Harry Kane", "John Stones"} {
		if a, b := writers[0].ID(1, n), writers[1].ID(1, n); a != b || a == 0 {
			t.Errorf("%s: ids %d and %d", n, a, b)
		}
	}
	persons := natstest.All[model.Person](t, s, events.KindPerson)
	if len(persons) != 2 {
		t.Errorf("%d persons, want Harry Kane and John Stones: %v", len(persons), persons)
	}
	kane := persons[events.Subject(events.KindPerson, strconv.Itoa(writers[0].ID(1, "Harry Kane")))]
	if kane.Name != "Harry Kane" || !slices.Equal(kane.Aliases, []string{"Kane"}) {
		t.Errorf("Harry Kane after both: %+v", kane)
	}
}

// TestSquadCarriesPlayers puts a squad again and again: a player given
// without an id keeps the one his name had and a new name gets a new one;
// an import also keeps the details the source does not give, a put does
// not.
func TestSquadCarriesPlayers(t *testing.T) {
	ctx := ctxT(t)
	s := natstest.MustOpen(t, natstest.MustStart(t))
	natstest.PutNew(t, s, &model.Team{ID: 1, Name: "England"})
	ed := natstest.Editor(t, s)
	born, until, value := model.Date("1993-07-28"), model.Date("2027-06-30"), "100 M €"
	stored := func(step string, put func(context.Context, model.Squad) (editor.Change, error), players ...model.Player) map[string]model.Player {
		t.Helper()
		if _, err := put(ctx, model.Squad{TeamID: 1, Players: players}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		sq, _, err := events.Load[model.Squad](ctx, s, events.Subject(events.KindSquad, "1"))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		byName := map[string]model.Player{}
		for _, p := range sq.Players {
			byName[p.Name] = p
		}
		return byName
	}
	first := stored("put", ed.PutSquad, model.Player{Name: "Harry Kane", DateOfBirth: &born, ContractUntil: &until, MarketValue: &value},
		model.Player{Name: "Jude Bellingham"})
	kane, jude := first["Harry Kane"].ID, first["Jude Bellingham"].ID
	if kane == 0 || jude == 0 || kane == jude {
		t.Fatalf("ids %d and %d, want two new ones", kane, jude)
	}

	imported := stored("import", ed.ImportSquad, model.Player{Name: "Harry Kane"}, model.Player{Name: "Declan Rice"})
	k, rice := imported["Harry Kane"], imported["Declan Rice"].ID
	if k.ID != kane || k.DateOfBirth == nil || *k.DateOfBirth != born || k.ContractUntil == nil || *k.ContractUntil != until ||
		k.MarketValue == nil || *k.MarketValue != value {
		t.Errorf("imported Kane %+v, want id %d and the details he had", k, kane)
	}
	if rice == 0 || rice == kane || rice == jude {
		t.Errorf("Rice's id %d, want a new one (Kane %d, Bellingham %d)", rice, kane, jude)
	}

	put := stored("put again", ed.PutSquad, model.Player{Name: "Harry Kane"})
	if k := put["Harry Kane"]; k.ID != kane || k.DateOfBirth != nil || k.ContractUntil != nil || k.MarketValue != nil {
		t.Errorf("put Kane %+v, want id %d and no details", k, kane)
	}
}
