package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream API subjects of snapshots and restores, and what this
// client asks of them.
const (
	snapshotSubject = "$JS.API.STREAM.SNAPSHOT."
	restoreSubject  = "$JS.API.STREAM.RESTORE."
	// chunkSize is the size of the chunks both ways: the server's own
	// default for snapshots, far below any server's max_payload.
	chunkSize = 128 << 10
	// apiWait bounds the wait for an API answer (a stream's leader
	// answers a snapshot request, the meta leader a restore).
	apiWait = 10 * time.Second
	// chunkWait bounds the wait for the next chunk of a snapshot, or the
	// server's acknowledgement of a chunk of a restore: the server gives
	// up on a silent peer after 5 s, so a longer silence is a dead one.
	chunkWait = 30 * time.Second
	// finishWait bounds the wait for the server's last word on a restore,
	// once every chunk is in: it has stored them by then, as each was
	// acknowledged, and is left to activate the stream.
	finishWait = 5 * time.Minute
)

// streamNotFound is the JetStream error code of a stream that does not
// exist.
const streamNotFound = 10059

// apiError is the error part of every JetStream API answer.
type apiError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s (JetStream error %d)", e.Description, e.ErrCode)
}

// snapshotResponse is the server's answer to a snapshot request: what it
// is about to send.
type snapshotResponse struct {
	Error  *apiError       `json:"error"`
	Config json.RawMessage `json:"config"`
	State  State           `json:"state"`
}

// restoreResponse is the server's answer to a restore request: where to
// send the chunks.
type restoreResponse struct {
	Error          *apiError `json:"error"`
	DeliverSubject string    `json:"deliver_subject"`
}

// createResponse is the server's last word on a restore: the stream as
// restored.
type createResponse struct {
	Error  *apiError       `json:"error"`
	State  State           `json:"state"`
	Config json.RawMessage `json:"config"`
}

// request sends a JetStream API request and decodes its answer into
// resp. The server drops a request the user may not send and says so on
// the side, before it answers the flush that follows: such a request fails
// at once, naming the subject, instead of after wait.
func request(ctx context.Context, nc *nats.Conn, subject string, req, resp any, wait time.Duration) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest(subject, inbox, body); err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	if err := nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	if last := nc.LastError(); errors.Is(last, nats.ErrPermissionViolation) && strings.Contains(last.Error(), `"`+subject+`"`) {
		return &events.PermissionError{User: events.User(strings.Join(nc.Opts.Servers, ",")), Subject: subject, Err: last}
	}
	msg, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		return fmt.Errorf("%s: no answer from JetStream: %w", subject, err)
	}
	if len(msg.Data) == 0 && msg.Header.Get("Status") == "503" {
		return fmt.Errorf("%s: no answer from JetStream: is it enabled for the account?", subject)
	}
	if err := json.Unmarshal(msg.Data, resp); err != nil {
		return fmt.Errorf("%s: answer %q: %w", subject, msg.Data, err)
	}
	return nil
}

// snapshot asks the server for a snapshot of stream, without its
// consumers (the service's are ephemeral and made again by whoever reads),
// and writes it to w as it comes. It returns what the server said of the
// stream when the snapshot began.
//
// The server sends chunks to an inbox; each but the last asks for an
// empty acknowledgement, which opens room for more (it keeps a window of
// chunks in flight and gives up after 5 s without one). A message without
// data ends it: no status or 204 is success, anything else says why the
// server stopped.
func snapshot(ctx context.Context, nc *nats.Conn, stream string, w io.Writer) (snapshotResponse, error) {
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return snapshotResponse{}, fmt.Errorf("snapshot of %s: subscribe: %w", stream, err)
	}
	defer sub.Unsubscribe()
	var resp snapshotResponse
	req := struct {
		DeliverSubject string `json:"deliver_subject"`
		NoConsumers    bool   `json:"no_consumers"`
		ChunkSize      int    `json:"chunk_size"`
	}{inbox, true, chunkSize}
	if err := request(ctx, nc, snapshotSubject+stream, req, &resp, apiWait); err != nil {
		return resp, fmt.Errorf("snapshot of %s: %w", stream, err)
	}
	if resp.Error != nil && resp.Error.ErrCode == streamNotFound {
		return resp, fmt.Errorf("snapshot of %s: %w", stream, jetstream.ErrStreamNotFound)
	}
	if resp.Error != nil {
		return resp, fmt.Errorf("snapshot of %s: %w", stream, resp.Error)
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, chunkWait)
		msg, err := sub.NextMsgWithContext(cctx)
		cancel()
		if err != nil {
			return resp, fmt.Errorf("snapshot of %s: waiting for the next chunk: %w", stream, err)
		}
		if len(msg.Data) == 0 {
			if status := msg.Header.Get("Status"); status != "" && status != "204" {
				return resp, fmt.Errorf("snapshot of %s: the server stopped it: %s %s", stream, status, msg.Header.Get("Description"))
			}
			return resp, nil
		}
		if _, err := w.Write(msg.Data); err != nil {
			return resp, fmt.Errorf("snapshot of %s: %w", stream, err)
		}
		if msg.Reply != "" {
			if err := msg.Respond(nil); err != nil {
				return resp, fmt.Errorf("snapshot of %s: acknowledge a chunk: %w", stream, err)
			}
		}
	}
}

// restore creates stream from the snapshot r holds, with config (its
// configuration as the server gave it) and state (the snapshot's). The
// stream must not exist.
//
// The server answers the request with a subject to send the chunks to;
// each chunk is a request the server acknowledges once it has taken it
// (an empty answer) or refuses (an API error), and an empty message ends
// the snapshot, answered with the stream as restored.
// sendChunk sends one chunk of a restore and waits for its ack. On a
// cluster the server may answer the restore request a moment before it
// listens on the subject the chunks go to: a chunk nobody received ("no
// responders") is sent again, for up to noRespondersWait; nothing was
// stored of it, so the resend cannot double it.
func sendChunk(ctx context.Context, nc *nats.Conn, subject string, chunk []byte) (*nats.Msg, error) {
	giveUp := time.Now().Add(noRespondersWait)
	for {
		cctx, cancel := context.WithTimeout(ctx, chunkWait)
		ack, err := nc.RequestWithContext(cctx, subject, chunk)
		cancel()
		if !errors.Is(err, nats.ErrNoResponders) || time.Now().After(giveUp) {
			return ack, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// noRespondersWait bounds sendChunk's resends.
const noRespondersWait = 5 * time.Second

func restore(ctx context.Context, nc *nats.Conn, stream string, config json.RawMessage, state State, r io.Reader) (createResponse, error) {
	var resp restoreResponse
	req := struct {
		Config json.RawMessage `json:"config"`
		State  State           `json:"state"`
	}{config, state}
	if err := request(ctx, nc, restoreSubject+stream, req, &resp, apiWait); err != nil {
		return createResponse{}, fmt.Errorf("restore of %s: %w", stream, err)
	}
	if resp.Error != nil {
		return createResponse{}, fmt.Errorf("restore of %s: %w", stream, resp.Error)
	}
	buf := make([]byte, chunkSize)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			var refused struct {
				Error *apiError `json:"error"`
			}
			ack, rerr := sendChunk(ctx, nc, resp.DeliverSubject, buf[:n])
			if rerr != nil {
				return createResponse{}, fmt.Errorf("restore of %s: send a chunk: %w", stream, rerr)
			}
			if len(ack.Data) > 0 && json.Unmarshal(ack.Data, &refused) == nil && refused.Error != nil {
				return createResponse{}, fmt.Errorf("restore of %s: %w", stream, refused.Error)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return createResponse{}, fmt.Errorf("restore of %s: read the backup: %w", stream, err)
		}
	}
	var done createResponse
	fctx, cancel := context.WithTimeout(ctx, finishWait)
	defer cancel()
	last, err := nc.RequestWithContext(fctx, resp.DeliverSubject, nil)
	if err != nil {
		return done, fmt.Errorf("restore of %s: waiting for the server to finish: %w", stream, err)
	}
	if err := json.Unmarshal(last.Data, &done); err != nil {
		return done, fmt.Errorf("restore of %s: answer %q: %w", stream, last.Data, err)
	}
	if done.Error != nil {
		return done, fmt.Errorf("restore of %s: %w", stream, done.Error)
	}
	return done, nil
}
