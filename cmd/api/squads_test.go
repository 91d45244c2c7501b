package main

import (
	"encoding/json"
	"testing"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
)

// TestImportedSquadServed: a Football.TXT squad imported for a club is
// its /v1/teams/{id}/players, with null for what the format lacks (a birth
// year alone is no date of birth).
func TestImportedSquadServed(t *testing.T) {
	r := startReplica(t, "", "--public-url", "http://api.test")
	s := r.store()
	importFiles(t, s, "openfootball-football-json/2023-24/en.1.json")
	sum := natstest.Import(t, s, "squads", importer.Options{}, natstest.SharedData(t, "openfootball-england/2023-24/squads/arsenal.txt"))
	if sum.Squads.Created != 1 || len(sum.Rejected) > 0 {
		t.Fatalf("squads %+v, rejected %v", sum.Squads, sum.Rejected)
	}
	r.waitApplied(s)
	// Arsenal keeps the v1 id of the historic service, 57.
	resp := r.do("GET", "/v1/teams/57/players", nil)
	if resp.status != 200 {
		t.Fatalf("players: %d %s", resp.status, resp.body)
	}
	var body struct {
		Count   int                          `json:"count"`
		Players []map[string]json.RawMessage `json:"players"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Count != len(body.Players) || body.Count < 50 {
		t.Fatalf("%d players listed, count %d", len(body.Players), body.Count)
	}
	want := map[string]string{"name": `"David Raya"`, "position": `"Keeper"`, "jerseyNumber": "22", "nationality": `"Spain"`,
		"dateOfBirth": "null", "contractUntil": "null", "marketValue": "null"}
	for _, p := range body.Players {
		if string(p["name"]) != want["name"] {
			continue
		}
		for k, v := range want {
			if string(p[k]) != v {
				t.Errorf("David Raya's %s: %s, want %s", k, p[k], v)
			}
		}
		return
	}
	t.Errorf("David Raya not among the players: %s", resp.body)
}
