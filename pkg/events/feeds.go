package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// FeedsBucket is the key-value bucket of the feeds' leases (lease.<feed>)
// and statuses (status.<feed>), kept by `ingest follow` (internal/follow).
// It is named and made here, beside the stream, so that provisioning
// needs none of the write side.
//
// Its reads go to the stream's leader: the bucket allows no direct gets,
// which any replica answers, one a write behind included. A lease read
// right after a follower gave it up (its release, `ingest feed show`)
// would otherwise show the follower still holding it. The bucket is tiny
// and read a few times a poll, so the leader's load does not count.
const FeedsBucket = "FD_FEEDS"

// ProvisionFeeds creates or updates the feeds bucket, kept on replicas servers (0
// keeps what it has, 1 when creating it), and reports the replicas it had
// before (0: none). Provision's companion.
func ProvisionFeeds(ctx context.Context, nc *nats.Conn, replicas int) (before int, err error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, fmt.Errorf("jetstream: %w", err)
	}
	stream, err := js.Stream(ctx, "KV_"+FeedsBucket)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		// The key-value layout is nats.go's to make; it always allows
		// direct gets, which the update below takes away.
		_, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      FeedsBucket,
			Description: "feeds of ingest follow: leases and statuses",
			History:     1,
			Storage:     jetstream.FileStorage,
			Replicas:    cmp.Or(replicas, 1),
		})
		if err == nil {
			stream, err = js.Stream(ctx, "KV_"+FeedsBucket)
		}
	case err == nil:
		before = stream.CachedInfo().Config.Replicas
	}
	if err != nil {
		return before, fmt.Errorf("feeds bucket %s: %w", FeedsBucket, Explain(nc, err))
	}
	cfg := stream.CachedInfo().Config
	want := cfg
	want.Replicas, want.AllowDirect = cmp.Or(replicas, before, cfg.Replicas), false
	if want.Replicas == cfg.Replicas && !cfg.AllowDirect {
		return before, nil
	}
	if _, err := js.UpdateStream(ctx, want); err != nil {
		return before, fmt.Errorf("feeds bucket %s: %w", FeedsBucket, Explain(nc, err))
	}
	return before, nil
}
