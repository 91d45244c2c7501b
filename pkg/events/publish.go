package events

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Meta says who made a change and from where; it travels in the headers.
type Meta struct {
	Editor string
	Source string
}

// ErrConflict is matched by errors.Is on every *ConflictError.
var ErrConflict = errors.New("conflict")

// ConflictError reports a compare-and-set write that lost: the entity
// changed (or was created) since the writer read it.
type ConflictError struct {
	Subject  string
	Expected uint64
}

func (e *ConflictError) Error() string {
	kind, key, _ := KeyOf(e.Subject)
	what := fmt.Sprintf("%s %s", kind, strings.Join(key, "/"))
	if e.Expected == 0 {
		return what + " was created by someone else meanwhile; show it and retry"
	}
	return fmt.Sprintf("%s was changed by someone else after revision %d; show it and retry", what, e.Expected)
}

// Unwrap makes errors.Is(err, ErrConflict) and model.ErrorCode work.
func (e *ConflictError) Unwrap() []error {
	return []error{ErrConflict, &model.Error{Code: model.Conflict, Message: e.Error()}}
}

func notFound(subject string) error {
	kind, key, _ := KeyOf(subject)
	return model.NotFoundf("%s %s does not exist", kind, strings.Join(key, "/"))
}

// Write is one compare-and-set change of an entity.
type Write struct {
	Value any
	// Prev is the revision the change was made from; nil means the entity
	// must not exist yet.
	Prev *Revision
	Meta Meta
}

// Result says what a write did.
type Result struct {
	Subject string
	Seq     uint64
	// Changed is false when the new state equals the current one and
	// nothing was published.
	Changed bool
}

// msgID names one logical change: the same state written from the same
// revision. A retry after a lost ack carries the same id and is dropped by
// the stream; a different change from the same revision gets a different id
// and so meets the compare-and-set check instead of the duplicate filter.
func msgID(subject string, expected uint64, body []byte) string {
	h := sha256.New()
	h.Write([]byte(subject))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatUint(expected, 10)))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func newMsg(subject string, body []byte, expected uint64, meta Meta) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = body
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(expected, 10))
	m.Header.Set(jetstream.MsgIDHeader, msgID(subject, expected, body))
	if meta.Editor != "" {
		m.Header.Set(HeaderEditor, meta.Editor)
	}
	if meta.Source != "" {
		m.Header.Set(HeaderSource, meta.Source)
	}
	return m
}

// prepare encodes w and reports whether it changes anything.
func prepare(w Write) (subject string, body []byte, expected uint64, changed bool, err error) {
	subject, err = SubjectOf(w.Value)
	if err != nil {
		return "", nil, 0, false, err
	}
	body, err = Encode(w.Value)
	if err != nil {
		return "", nil, 0, false, err
	}
	if w.Prev != nil {
		if w.Prev.Subject != "" && w.Prev.Subject != subject {
			return "", nil, 0, false, fmt.Errorf("write %s from a revision of %s", subject, w.Prev.Subject)
		}
		expected = w.Prev.Seq
		if bytes.Equal(w.Prev.Data, body) {
			return subject, body, expected, false, nil
		}
	}
	return subject, body, expected, true, nil
}

// Put publishes w unless it changes nothing. A lost compare-and-set comes
// back as a *ConflictError.
func (s *Store) Put(ctx context.Context, w Write) (Result, error) {
	subject, body, expected, changed, err := prepare(w)
	if err != nil {
		return Result{}, err
	}
	if !changed {
		return Result{Subject: subject, Seq: expected}, nil
	}
	msg := newMsg(subject, body, expected, w.Meta)
	var lastErr error
	for attempt := 0; attempt < putAttempts; attempt++ {
		tctx, cancel := context.WithTimeout(ctx, requestTimeout)
		ack, err := s.js.PublishMsg(tctx, msg)
		cancel()
		if err == nil {
			return Result{Subject: subject, Seq: ack.Sequence, Changed: true}, nil
		}
		err = publishError(subject, expected, err)
		if errors.Is(err, ErrConflict) {
			// After a lost ack the retry meets its own first copy in
			// the compare-and-set check (which the server makes before
			// the duplicate check): that is a success, not a conflict.
			if attempt == 0 {
				return Result{}, err
			}
			seq, ok, lerr := s.landed(ctx, subject, msg)
			if lerr == nil && ok {
				return Result{Subject: subject, Seq: seq, Changed: true}, nil
			}
			if lerr == nil {
				return Result{}, err
			}
			err = lerr
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	return Result{}, lastErr
}

// putAttempts bounds the retries of one write whose ack was lost.
const putAttempts = 5

// landed reports whether msg is the current revision of subject, that is
// whether an earlier attempt whose ack was lost was stored after all.
func (s *Store) landed(ctx context.Context, subject string, msg *nats.Msg) (uint64, bool, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("check %s: %w", subject, err)
	}
	return m.Sequence, m.Header.Get(jetstream.MsgIDHeader) == msg.Header.Get(jetstream.MsgIDHeader), nil
}

func publishError(subject string, expected uint64, err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return &ConflictError{Subject: subject, Expected: expected}
	}
	return fmt.Errorf("publish %s: %w", subject, err)
}
