package events_test

import (
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestFeedsBucketAllowsNoDirectGets: the feeds bucket, made afresh or
// upgraded from one that allowed them, answers reads from its leader only,
// so that a lease read after its release is never a replica's stale copy.
func TestFeedsBucketAllowsNoDirectGets(t *testing.T) {
	ctx := ctxT(t)
	srv := natstest.MustStart(t)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	allowDirect := func() bool {
		t.Helper()
		s, err := js.Stream(ctx, "KV_"+events.FeedsBucket)
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().Config.AllowDirect
	}

	// MustStart provisioned it as ingest stream init does.
	if allowDirect() {
		t.Errorf("a new feeds bucket allows direct gets")
	}
	// A bucket as the versions before made it: nats.go's defaults.
	if _, err := js.UpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: events.FeedsBucket, History: 1, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	if !allowDirect() {
		t.Fatalf("nats.go's bucket allows no direct gets: the test stands for no earlier bucket")
	}
	for range 2 {
		if before, err := events.ProvisionFeeds(ctx, nc, 0); err != nil || before != 1 {
			t.Fatalf("ProvisionFeeds, bucket at 1 replica: before %d, %v; want 1, nil", before, err)
		}
		if allowDirect() {
			t.Errorf("an upgraded feeds bucket allows direct gets")
		}
	}
}
