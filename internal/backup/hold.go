package backup

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// holdName is the stream a restore keeps while it replaces streams. The
// server removes an account's storage directory in the background once
// the account's last stream is deleted, and a stream created meanwhile
// (the restore of the stream just deleted) can find the directory gone
// under it: "could not create storage directory", a restore failed by
// chance. While this stream exists the directory is never empty. It holds
// no message, and footballd owns it only for the length of a restore: no
// backup names it.
const holdName = "FD_RESTORING"

// hold creates the stream that keeps the account's storage while a
// restore replaces streams, on as many servers as the streams restored;
// one left by a restore that was killed is taken over. release removes
// it.
func hold(ctx context.Context, js jetstream.JetStream, replicas int) (release func() error, err error) {
	hctx, cancel := context.WithTimeout(ctx, apiWait)
	defer cancel()
	_, err = js.CreateOrUpdateStream(hctx, jetstream.StreamConfig{
		Name:        holdName,
		Description: "footballd: held while a restore replaces streams; removed when it ends",
		Subjects:    []string{"footballd.restoring"},
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		MaxMsgs:     1,
	})
	if err != nil {
		return nil, fmt.Errorf("hold the storage while restoring (stream %s): %w; nothing restored", holdName, err)
	}
	return func() error {
		// The restore's own context may be done by now; the stream is
		// removed all the same.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apiWait)
		defer cancel()
		if err := js.DeleteStream(dctx, holdName); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("remove stream %s, which held the storage while restoring: %w; it holds nothing, and the next restore removes it", holdName, err)
		}
		return nil
	}, nil
}
