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
	// Year and Type are the competition's season and kind: a v4 URI names
	// the league's season, and a cup's matches for want of standings.
	Year int
	Type model.CompetitionType
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

// API is the version of the API whose resource an event's URI names:
// the event itself is the same in both.
type API uint8

const (
	V1 API = iota
	V4
)

// APIs are the versions' names, as clients and editors write them.
var APIs = [...]string{V1: "v1", V4: "v4"}

// ParseAPI reads a version's name.
func ParseAPI(name string) (API, bool) {
	for i, n := range APIs {
		if n == name {
			return API(i), true
		}
	}
	return V1, false
}

// Body renders the event as webhooks and event streams send it; base is the
// public URL the links start with, api the version of the resource URI
// names: v1's fixture or competition, or v4's match, or the standings (a
// cup's matches) of the competition's season, by league code.
func (e *Event) Body(base string, api API) ([]byte, error) {
	id := strconv.FormatInt(int64(e.ID), 10)
	uri := base + "/v1/fixtures/" + id
	switch {
	case api == V4 && e.Kind != CompetitionUpdate:
		uri = base + "/v4/matches/" + id
	case api == V4:
		what := "/standings?season="
		if e.Type == model.TypeCup {
			what = "/matches?season="
		}
		uri = base + "/v4/competitions/" + string(e.League) + what + strconv.Itoa(e.Year)
	case e.Kind == CompetitionUpdate:
		uri = base + "/v1/competitions/" + id
	}
	return json.Marshal(body{
		Timestamp: e.Time.UTC().Format(time.RFC3339),
		Resource:  e.Resource(),
		ID:        e.ID,
		URI:       uri,
		Updates:   e.Updates,
	})
}
