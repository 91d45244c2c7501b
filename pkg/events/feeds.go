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
const FeedsBucket = "FD_FEEDS"

// ProvisionFeeds creates or updates the feeds bucket, kept on replicas servers (0
// keeps what it has, 1 when creating it), and reports the replicas it had
// before (0: none). Provision's companion.
func ProvisionFeeds(ctx context.Context, nc *nats.Conn, replicas int) (before int, err error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, FeedsBucket)
	switch {
	case err == nil:
		st, err := kv.Status(ctx)
		if err != nil {
			return 0, fmt.Errorf("feeds bucket %s: %w", FeedsBucket, Explain(nc, err))
		}
		before = st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas
	case !errors.Is(err, jetstream.ErrBucketNotFound):
		return 0, fmt.Errorf("feeds bucket %s: %w", FeedsBucket, Explain(nc, err))
	}
	_, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      FeedsBucket,
		Description: "feeds of ingest follow: leases and statuses",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    cmp.Or(replicas, before, 1),
	})
	if err != nil {
		return before, fmt.Errorf("feeds bucket %s: %w", FeedsBucket, Explain(nc, err))
	}
	return before, nil
}
