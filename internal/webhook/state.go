package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StatesBucket is the key-value bucket of the webhooks' states, one key
// per webhook name.
const StatesBucket = "FD_WEBHOOKS"

// Status is where a webhook stands.
type Status string

// Statuses. A failing webhook still gets new events; its next delivered
// event makes it verified again.
const (
	Pending            Status = "pending verification"
	Verified           Status = "verified"
	VerificationFailed Status = "verification failed"
	Failing            Status = "failing"
)

// lastAttempts is how many attempts a state keeps.
const lastAttempts = 10

// State is what the replicas know of one webhook registration.
type State struct {
	// Created is the registration's creation time: a webhook removed and
	// added again under its name starts from a fresh state.
	Created time.Time `json:"created"`
	Status  Status    `json:"status"`
	// Since is when Status was last set.
	Since time.Time `json:"since"`
	// Verification is the last verification attempt's error.
	Verification string `json:"verification,omitempty"`
	Delivered    uint64 `json:"delivered"`
	// Failed counts failed attempts (each one retried), GaveUp the
	// deliveries given up after the last retry, Dropped the events held
	// for a webhook whose verification failed.
	Failed  uint64 `json:"failed"`
	GaveUp  uint64 `json:"gaveUp"`
	Dropped uint64 `json:"dropped"`
	// Circuit is CircuitOpen while a replica has parked the webhook after
	// failed attempts in a row (Config.CircuitAfter), "" otherwise: its
	// deliveries wait, unsent, until ParkedUntil, when one attempt
	// probes the receiver. Each replica parks on what its own attempts
	// met; this is what the last one to change its circuit reported.
	Circuit     string    `json:"circuit,omitempty"`
	ParkedUntil time.Time `json:"parkedUntil,omitzero"`
	// Parked counts the deliveries put off while the webhook was parked.
	Parked uint64    `json:"parked"`
	Last   []Attempt `json:"last,omitempty"`
}

// CircuitOpen is State.Circuit of a parked webhook.
const CircuitOpen = "open"

// Attempt is one delivery attempt.
type Attempt struct {
	Time time.Time `json:"time"`
	ID   string    `json:"id"`
	// Attempt counts the times the delivery was handed to a replica,
	// the waits for the host's verification and the hand-backs of a busy
	// or parked webhook included.
	Attempt uint64 `json:"attempt"`
	// Status is the HTTP status (0: no answer).
	Status   int     `json:"status,omitempty"`
	Error    string  `json:"error,omitempty"`
	Duration float64 `json:"seconds"`
}

func (s *State) record(a Attempt) {
	s.Last = append([]Attempt{a}, s.Last[:min(len(s.Last), lastAttempts-1)]...)
}

func (s *State) set(st Status, now time.Time) {
	if s.Status != st {
		s.Status, s.Since = st, now
	}
}

// States is the bucket of webhook states.
type States struct {
	kv jetstream.KeyValue // nil: no bucket yet
}

// ReadStates opens the bucket on nc for reading; until an API replica
// has created it, every webhook is without a state.
func ReadStates(ctx context.Context, nc *nats.Conn) (*States, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, StatesBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return &States{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("webhook states bucket %s: %w", StatesBucket, err)
	}
	if err := events.WaitAnswering(ctx, kv); err != nil {
		return nil, err
	}
	return &States{kv: kv}, nil
}

// openStates opens the bucket as it is (Provision makes it).
func openStates(ctx context.Context, nc *nats.Conn) (*States, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, StatesBucket)
	if err != nil {
		return nil, notProvisioned(nc, "webhook states bucket "+StatesBucket, err, jetstream.ErrBucketNotFound)
	}
	if err := events.WaitAnswering(ctx, kv); err != nil {
		return nil, err
	}
	return &States{kv: kv}, nil
}

// provisionStates creates or updates the bucket, kept on replicas servers
// (0 keeps what it has, 1 when creating it), and reports the replicas it
// had before (0: none).
func provisionStates(ctx context.Context, js jetstream.JetStream, replicas int) (before int, err error) {
	kv, err := js.KeyValue(ctx, StatesBucket)
	switch {
	case err == nil:
		st, err := kv.Status(ctx)
		if err != nil {
			return 0, err
		}
		before = st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas
	case !errors.Is(err, jetstream.ErrBucketNotFound):
		return 0, err
	}
	_, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      StatesBucket,
		Description: "webhook states: verification, deliveries, failures",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    cmp.Or(replicas, before, 1),
	})
	return before, err
}

// Get returns the state of the registration of name created at created;
// ok is false when the replicas have not seen it yet.
func (s *States) Get(ctx context.Context, name string, created time.Time) (st State, ok bool, err error) {
	st, _, err = s.get(ctx, name)
	if err != nil || st.Created.IsZero() || !st.Created.Equal(created) {
		return State{}, false, err
	}
	return st, true, nil
}

// get returns the stored state of name and its revision (0: none).
func (s *States) get(ctx context.Context, name string) (State, uint64, error) {
	if s.kv == nil {
		return State{}, 0, nil
	}
	st, rev, err := events.GetJSON[State](ctx, s.kv, name)
	if err != nil {
		return State{}, 0, fmt.Errorf("webhook state %s: %w", name, err)
	}
	return st, rev, nil
}

// update changes the state of a registration with compare-and-set, so
// that replicas writing at once lose nothing; a state of an earlier
// registration of the name is replaced by a fresh one.
func (s *States) update(ctx context.Context, name string, created time.Time, now time.Time, change func(*State) error) (State, error) {
	st, err := events.UpdateJSON(ctx, s.kv, name, func(st *State) error {
		if !st.Created.Equal(created) {
			*st = State{Created: created, Status: Pending, Since: now}
		}
		return change(st)
	})
	if err != nil {
		return State{}, fmt.Errorf("webhook state %s: %w", name, err)
	}
	return st, nil
}

// remove deletes the state of name when it belongs to the registration
// created at created or to an earlier one: a later registration of the
// name, which another replica may already have seen, keeps its own. The
// delete is a compare-and-set on the revision read, so a state written
// meanwhile is read again first.
func (s *States) remove(ctx context.Context, name string, created time.Time) error {
	for range 20 {
		st, rev, err := s.get(ctx, name)
		if err != nil || rev == 0 || st.Created.After(created) {
			return err
		}
		err = s.kv.Delete(ctx, name, jetstream.LastRevision(rev))
		switch {
		case err == nil:
			return nil
		case events.IsConflict(err):
			continue
		}
		return fmt.Errorf("webhook state %s: delete: %w", name, err)
	}
	return fmt.Errorf("webhook state %s: too much contention", name)
}
