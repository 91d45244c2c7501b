package events

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Meta says who made a change and from where; it travels in the headers.
type Meta struct {
	Editor string
	Source string
}

// Msg is one compare-and-set write: Body, the new state of the entity at
// Subject, is stored only if the subject's last sequence is still Expected
// (0: the subject must hold nothing yet). Deciding what to write, and
// whether it changes anything, is the writer's business (internal/editor);
// the stream only stores it.
type Msg struct {
	Subject  string
	Body     []byte
	Expected uint64
	Meta     Meta
}

// conflict is the error of a compare-and-set write that lost: the entity
// changed (or was created) since the writer read it. It is a model.Error
// with code Conflict, the one form every layer knows.
func conflict(subject string, expected uint64) error {
	kind, key, _ := KeyOf(subject)
	what := fmt.Sprintf("%s %s", kind, strings.Join(key, "/"))
	msg := fmt.Sprintf("%s was changed by someone else after revision %d; show it and retry", what, expected)
	if expected == 0 {
		msg = what + " was created by someone else meanwhile; show it and retry"
	}
	return &model.Error{Code: model.Conflict, Message: msg}
}

func notFound(subject string) error {
	kind, key, _ := KeyOf(subject)
	return model.NotFoundf("%s %s does not exist", kind, strings.Join(key, "/"))
}

// headerChange carries a message's msgID. It is not the server's message
// id header on purpose: every message is a compare-and-set, so a resend of
// a message that was stored fails its check, and landed recognises the
// stored copy by this id. The server's duplicate filter would add nothing
// but its cost (a map of every id of the last two minutes, about a tenth
// of the server's work in an import).
const headerChange = "Fd-Change"

// msgID names one logical change: the same state written from the same
// revision. A resend after a lost ack carries the same id, so landed
// recognises its first copy; a different change from the same revision
// gets a different id.
// h and scratch are the caller's to reuse from message to message (an
// import names hundreds of thousands); scratch is returned for the next.
func msgID(h hash.Hash, scratch []byte, subject string, expected uint64, body []byte) (string, []byte) {
	scratch = append(scratch[:0], subject...)
	scratch = append(scratch, 0)
	scratch = strconv.AppendUint(scratch, expected, 10)
	scratch = append(scratch, 0)
	h.Reset()
	h.Write(scratch)
	h.Write(body)
	scratch = h.Sum(scratch[:0])
	var id [32]byte
	return string(hex.AppendEncode(id[:0], scratch[:16])), scratch
}

// natsMsg is m as the stream receives it: the body with the headers of
// the compare-and-set, the change's id and who made it. The four header
// values share one array.
func (b *Bulk) natsMsg(m Msg) *nats.Msg {
	vals := make([]string, 2, 4)
	vals[0] = strconv.FormatUint(m.Expected, 10)
	vals[1], b.scratch = msgID(b.hash, b.scratch, m.Subject, m.Expected, m.Body)
	h := make(nats.Header, 4)
	h[jetstream.ExpectedLastSubjSeqHeader] = vals[0:1:1]
	h[headerChange] = vals[1:2:2]
	if m.Meta.Editor != "" {
		vals = append(vals, m.Meta.Editor)
		h[HeaderEditor] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	if m.Meta.Source != "" {
		vals = append(vals, m.Meta.Source)
		h[HeaderSource] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	return &nats.Msg{Subject: m.Subject, Data: m.Body, Header: h}
}

// Publish stores one message and returns its sequence: a Bulk of one, so
// that a single edit and an import of thousands share one way to the
// stream, with the same resends after a lost ack.
func (s *Store) Publish(ctx context.Context, m Msg) (uint64, error) {
	var seq uint64
	var perr error
	b := s.Bulk()
	if err := b.Put(ctx, m, func(q uint64, err error) { seq, perr = q, err }); err != nil {
		return 0, err
	}
	if err := b.Flush(ctx); err != nil {
		return 0, err
	}
	return seq, perr
}

// errInProcess says that a resend's compare-and-set failed while no
// revision of its subject after the expected one is stored yet: a write is
// still being stored (on a cluster, the first copy of the resend itself,
// or another writer's), so the resend asks again after a pause.
var errInProcess = errors.New("a write of the subject is still being stored")

// landed reports whether an earlier send of msg, written from revision
// expected, whose ack was lost, was stored after all: if it was, it is the
// subject's first revision after expected (its compare-and-set let nothing
// come between), whatever was written since.
func (s *Store) landed(ctx context.Context, msg *nats.Msg, expected uint64) (uint64, bool, error) {
	var m *jetstream.RawStreamMsg
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		m, err = s.nextMsg(ctx, msg.Subject, expected+1)
		return err
	}, func(err error) bool { return errors.Is(err, jetstream.ErrMsgNotFound) })
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, false, errInProcess
	}
	if err != nil {
		return 0, false, fmt.Errorf("check %s: %w", msg.Subject, err)
	}
	return m.Sequence, m.Header.Get(headerChange) == msg.Header.Get(headerChange), nil
}

// IsConflict reports whether a publish error is a lost compare-and-set,
// on the stream or on a key-value bucket (whose Create and Update are
// compare-and-set publishes too; a replicated one answers with its own
// code).
func IsConflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
