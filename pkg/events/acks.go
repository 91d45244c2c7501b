package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// acker publishes a Store's messages and takes their acks on one wildcard
// subscription, as jetstream's PublishMsgAsync does, without what that
// costs per message and a Bulk does not need: two result channels (a Bulk
// has one for its whole window), a timer (a Bulk times out only the
// oldest message it waits for) and the ack decoded by encoding/json (an
// ack that stored the message is read by hand). An import sends hundreds
// of thousands of messages; these were about a tenth of its CPU.
//
// Each send has a token; whoever removes the token from pending owns the
// outcome: the ack's handler (which hands it to the Bulk's channel), a
// disconnect (which fails every send in flight, as PublishMsgAsync does,
// so that an outage costs one wait, not a timeout per message) or the
// Bulk itself (a timeout, or giving up). A send is thus settled once, and
// a late ack of a send already settled is dropped.
type acker struct {
	mu      sync.Mutex
	prefix  string
	next    uint64
	pending map[uint64]*inflight
	// reply is the reply subject being built for the next send.
	reply []byte
}

// publishAsync sends f.msg with a reply subject of its own; its outcome
// reaches f.acks. It fails only when the message could not be handed to
// the connection and no disconnect settled the send meanwhile (then that
// failure is its outcome).
func (s *Store) publishAsync(f *inflight) error {
	a := &s.acks
	a.mu.Lock()
	if a.pending == nil {
		if err := s.listenAcks(); err != nil {
			a.mu.Unlock()
			return err
		}
	}
	a.next++
	f.token = a.next
	a.reply = strconv.AppendUint(append(a.reply[:0], a.prefix...), f.token, 10)
	f.msg.Reply = string(a.reply)
	a.pending[f.token] = f
	a.mu.Unlock()
	if err := s.nc.PublishMsg(f.msg); err != nil && s.forget(f) {
		return err
	}
	return nil
}

// listenAcks subscribes to the acks and starts failing the sends in
// flight whenever the connection drops. s.acks.mu is held.
func (s *Store) listenAcks() error {
	a := &s.acks
	prefix := s.nc.NewInbox() + "."
	if _, err := s.nc.Subscribe(prefix+"*", s.onAck); err != nil {
		return fmt.Errorf("subscribe to publish acks: %w", err)
	}
	a.prefix = prefix
	a.pending = make(map[uint64]*inflight)
	status := s.nc.StatusChanged(nats.RECONNECTING, nats.CLOSED)
	go func() {
		for st := range status {
			cause := nats.ErrDisconnected
			if st == nats.CLOSED {
				cause = nats.ErrConnectionClosed
			}
			s.failInFlight(cause)
			if st == nats.CLOSED {
				s.nc.RemoveStatusListener(status)
				return
			}
		}
	}()
	return nil
}

// forget takes f's send out of pending: true if it was there, so that the
// caller owns its outcome; false if an ack or a disconnect settled it and
// its outcome is on the way to f.acks.
func (s *Store) forget(f *inflight) bool {
	a := &s.acks
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending[f.token] != f {
		return false
	}
	delete(a.pending, f.token)
	return true
}

// failInFlight settles every send in flight with cause.
func (s *Store) failInFlight(cause error) {
	a := &s.acks
	a.mu.Lock()
	failed := make([]*inflight, 0, len(a.pending))
	for tok, f := range a.pending {
		failed = append(failed, f)
		delete(a.pending, tok)
	}
	a.mu.Unlock()
	for _, f := range failed {
		f.ackSeq, f.ackErr = 0, cause
		f.acks <- f
	}
}

// onAck settles the send an ack answers. It runs on the subscription's
// goroutine; f.acks never blocks it (a Bulk has room for its window).
func (s *Store) onAck(m *nats.Msg) {
	a := &s.acks
	tok, err := strconv.ParseUint(m.Subject[min(len(a.prefix), len(m.Subject)):], 10, 64)
	if err != nil {
		return
	}
	a.mu.Lock()
	f := a.pending[tok]
	delete(a.pending, tok)
	a.mu.Unlock()
	if f == nil {
		return
	}
	f.ackSeq, f.ackErr = readAck(m)
	f.acks <- f
}

// readAck returns the sequence an ack gives the message, or why the
// message was not stored: a *jetstream.APIError when the stream refused
// it. The ack of a stored message, {"stream":"NAME","seq":N}, is read by
// hand; anything else (an error, a duplicate, a domain) by encoding/json.
func readAck(m *nats.Msg) (uint64, error) {
	if len(m.Data) == 0 {
		if m.Header.Get("Status") == "503" {
			return 0, jetstream.ErrNoStreamResponse
		}
		return 0, jetstream.ErrInvalidJSAck
	}
	if seq, ok := plainAck(m.Data); ok {
		return seq, nil
	}
	var ack struct {
		Error  *jetstream.APIError `json:"error"`
		Stream string              `json:"stream"`
		Seq    uint64              `json:"seq"`
	}
	if err := json.Unmarshal(m.Data, &ack); err != nil {
		return 0, jetstream.ErrInvalidJSAck
	}
	if ack.Error != nil {
		return 0, ack.Error
	}
	if ack.Stream == "" {
		return 0, jetstream.ErrInvalidJSAck
	}
	return ack.Seq, nil
}

// plainAck reads {"stream":"NAME","seq":N} exactly, the server's ack of a
// stored message (its error field, when there is one, comes first).
func plainAck(b []byte) (uint64, bool) {
	const head, mid = `{"stream":"`, `","seq":`
	if !bytes.HasPrefix(b, []byte(head)) {
		return 0, false
	}
	b = b[len(head):]
	end := bytes.IndexByte(b, '"')
	if end <= 0 || bytes.IndexByte(b[:end], '\\') >= 0 || !bytes.HasPrefix(b[end:], []byte(mid)) {
		return 0, false
	}
	b = b[end+len(mid):]
	if len(b) < 2 || len(b) > 21 || b[len(b)-1] != '}' {
		return 0, false
	}
	seq, err := strconv.ParseUint(string(b[:len(b)-1]), 10, 64)
	return seq, err == nil
}
