package events

import (
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// HeaderChange is headerChange, for the tests of package events_test.
const HeaderChange = headerChange

// PendingAcks is how many sends of s await their ack, for the tests of
// package events_test.
func PendingAcks(s *Store) int {
	s.acks.mu.Lock()
	defer s.acks.mu.Unlock()
	return len(s.acks.pending)
}

func TestReadAck(t *testing.T) {
	for _, c := range []struct {
		name, data, status string
		seq                uint64
		err                error // a *jetstream.APIError stands for its code
	}{
		{"stored", `{"stream":"FOOTBALL","seq":42}`, "", 42, nil},
		{"largest sequence", `{"stream":"FOOTBALL","seq":18446744073709551615}`, "", 18446744073709551615, nil},
		{"duplicate", `{"stream":"FOOTBALL","seq":42,"duplicate":true}`, "", 42, nil},
		{"domain", `{"stream":"FOOTBALL","seq":7,"domain":"hub"}`, "", 7, nil},
		{"spaces", `{ "stream": "FOOTBALL", "seq": 9 }`, "", 9, nil},
		{"conflict", `{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"},"stream":"FOOTBALL","seq":0}`, "", 0,
			&jetstream.APIError{ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence}},
		{"subject in process", `{"error":{"code":400,"err_code":10164,"description":"wrong last sequence"},"stream":"FOOTBALL","seq":0}`, "", 0,
			&jetstream.APIError{ErrorCode: jetstream.JSErrCodeStreamWrongLastSequenceConstant}},
		{"no responders", "", "503", 0, jetstream.ErrNoStreamResponse},
		{"empty", "", "", 0, jetstream.ErrInvalidJSAck},
		{"not JSON", `nope`, "", 0, jetstream.ErrInvalidJSAck},
		{"no stream", `{"seq":5}`, "", 0, jetstream.ErrInvalidJSAck},
		{"sequence past 64 bits", `{"stream":"FOOTBALL","seq":18446744073709551616}`, "", 0, jetstream.ErrInvalidJSAck},
		{"negative sequence", `{"stream":"FOOTBALL","seq":-1}`, "", 0, jetstream.ErrInvalidJSAck},
		{"cut short", `{"stream":"FOOTBALL","seq":4`, "", 0, jetstream.ErrInvalidJSAck},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &nats.Msg{Data: []byte(c.data), Header: nats.Header{}}
			if c.status != "" {
				m.Header.Set("Status", c.status)
			}
			seq, err := readAck(m)
			if seq != c.seq {
				t.Errorf("sequence %d, want %d", seq, c.seq)
			}
			var want, got *jetstream.APIError
			switch {
			case errors.As(c.err, &want):
				if !errors.As(err, &got) || got.ErrorCode != want.ErrorCode {
					t.Errorf("error %v, want the server's error %d", err, want.ErrorCode)
				}
			case !errors.Is(err, c.err):
				t.Errorf("error %v, want %v", err, c.err)
			}
		})
	}
}
