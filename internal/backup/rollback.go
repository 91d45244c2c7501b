package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// saved is what a restore replaces, kept to put it back if the restore
// fails on the server: each existing stream's snapshot, taken before
// anything is deleted, in a scratch file of its own. It owns the files
// and removes them on close.
type saved struct {
	streams map[string]savedStream
}

// savedStream is one stream as it was: its snapshot and what the server
// said of it when the snapshot began.
type savedStream struct {
	file *os.File
	size int64
	resp snapshotResponse
}

// save snapshots every stream plan replaces. A stream it cannot snapshot
// fails the restore before anything changed.
func save(ctx context.Context, nc *nats.Conn, plan []Step) (*saved, error) {
	s := &saved{streams: map[string]savedStream{}}
	for _, step := range plan {
		if step.Existing == nil {
			continue
		}
		name := step.Stream.Name
		f, err := os.CreateTemp("", "footballd-restore-"+name+"-*.snapshot")
		if err != nil {
			s.close()
			return nil, fmt.Errorf("keep %s to put it back on failure: %w", name, err)
		}
		// Registered before the snapshot, so that close removes it
		// whatever happens.
		s.streams[name] = savedStream{file: f}
		n := &counter{}
		resp, err := snapshot(ctx, nc, name, io.MultiWriter(f, n))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("keep %s to put it back on failure: %w", name, err)
		}
		s.streams[name] = savedStream{file: f, size: n.n, resp: resp}
	}
	return s, nil
}

// putBack makes the streams of steps what they were before the restore:
// each is deleted if the restore left one, and restored from its saved
// snapshot if it existed.
func (s *saved) putBack(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, steps []Step) error {
	for _, step := range steps {
		name := step.Stream.Name
		dctx, cancel := context.WithTimeout(ctx, apiWait)
		err := js.DeleteStream(dctx, name)
		cancel()
		if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("delete the restored %s: %w", name, err)
		}
		old, ok := s.streams[name]
		if !ok {
			continue
		}
		done, err := restore(ctx, nc, name, old.resp.Config, old.resp.State, io.NewSectionReader(old.file, 0, old.size))
		if err != nil {
			return err
		}
		if done.State.Msgs != old.resp.State.Msgs || done.State.LastSeq != old.resp.State.LastSeq {
			return fmt.Errorf("%s put back holds %s, not %s", name, done.State, old.resp.State)
		}
	}
	return nil
}

// close removes the saved snapshots.
func (s *saved) close() {
	for _, old := range s.streams {
		old.file.Close()
		os.Remove(old.file.Name())
	}
}
