// Package push holds what the service pushes to clients: the events of the
// v1 Event-API, derived once per edit from the read model, and handed to
// webhooks and to live event streams alike.
package push

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// Kinds of event, with the historic names.
const (
	FixtureUpdate     = "Fixture.Update"
	CompetitionUpdate = "Competition.Update"
)

// Event is one change to one resource made by one edit. Every replica
// derives the same events from the same stream message, so ID is the same
// on every replica and on every retry of a delivery.
type Event struct {
	// Seq is the stream sequence of the edit that caused the event.
	Seq uint64
	// Kind is FixtureUpdate or CompetitionUpdate.
	Kind string
	// ID is the fixture's or the competition's id.
	ID int32
	// Competition, League and Teams say what the event is about, for
	// filters: a fixture's competition, league and two teams; for a
	// competition event its own id and league, and no teams.
	Competition int32
	League      model.LeagueCode
	Teams       []int32
	// Tier is the tier the competition requires: the event is pushed only
	// to callers whose tier allows it.
	Tier model.Tier
	// Time is when the edit was made (the message's timestamp).
	Time time.Time
	// Updates maps each changed v1 field to its old and new value.
	Updates map[string][2]any
}

// Resource is the historic resource name, "Fixture" or "Competition".
func (e *Event) Resource() string {
	if e.Kind == CompetitionUpdate {
		return "Competition"
	}
	return "Fixture"
}

// Key identifies the event across replicas and retries: the edit's stream
// sequence, the kind and the resource's id.
func (e *Event) Key() string {
	return strconv.FormatUint(e.Seq, 10) + "." + e.Kind + "." + strconv.FormatInt(int64(e.ID), 10)
}

// body is the JSON shape of the historic Event-API.
type body struct {
	Timestamp string            `json:"Timestamp"`
	Resource  string            `json:"Resource"`
	ID        int32             `json:"Id"`
	URI       string            `json:"URI"`
	Updates   map[string][2]any `json:"Updates"`
}

// Body renders the event as webhooks and event streams send it; base is the
// public URL the links start with.
func (e *Event) Body(base string) ([]byte, error) {
	path := "/v1/fixtures/"
	if e.Kind == CompetitionUpdate {
		path = "/v1/competitions/"
	}
	return json.Marshal(body{
		Timestamp: e.Time.UTC().Format(time.RFC3339),
		Resource:  e.Resource(),
		ID:        e.ID,
		URI:       base + path + strconv.FormatInt(int64(e.ID), 10),
		Updates:   e.Updates,
	})
}
