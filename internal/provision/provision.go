// Package provision makes what the service keeps in NATS JetStream, at the
// replication asked for: the event stream (FOOTBALL), the request budgets
// (bucket FD_LIMITS), the webhook work queue (stream FD_WEBHOOK_QUEUE), the
// webhook states (bucket FD_WEBHOOKS) and the feeds' leases and statuses
// (bucket FD_FEEDS).
//
// It is the one way they are created or changed: `ingest stream init`,
// run by an operator as a NATS user allowed to manage streams, and the
// single-machine mode of cmd/api (which runs its own server) call it.
// Replicas and editors find them as they are (events.Open, Store.Budgets,
// webhook.Check) and need no right to change them.
package provision

import (
	"context"
	"time"

	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
)

// Resource is one stream or bucket and its replicas before and after.
type Resource struct {
	Name string
	// Before is 0 when it did not exist.
	Before, After int
}

// Timeout bounds each step: a stream's creation at R3 waits for its
// leader's election.
const Timeout = 30 * time.Second

// Run creates or updates the stream as cfg says, and the buckets and the
// work queue at the stream's replication (cfg.Replicas; 0 keeps what each
// has, 1 when creating it). It is idempotent.
func Run(ctx context.Context, nc *nats.Conn, cfg events.StreamConfig) ([]Resource, error) {
	name := cfg.Name
	if name == "" {
		name = events.DefaultStream
	}
	var out []Resource
	step := func(f func(ctx context.Context) error) error {
		sctx, cancel := context.WithTimeout(ctx, Timeout)
		defer cancel()
		return f(sctx)
	}
	err := step(func(ctx context.Context) error {
		before, err := events.Provision(ctx, nc, cfg)
		if err != nil {
			return err
		}
		out = append(out, Resource{Name: name, Before: before, After: after(cfg.Replicas, before)})
		return nil
	})
	if err != nil {
		return out, err
	}
	err = step(func(ctx context.Context) error {
		before, err := events.ProvisionBudgets(ctx, nc, cfg.Replicas)
		if err != nil {
			return err
		}
		out = append(out, Resource{Name: events.BudgetsBucket, Before: before, After: after(cfg.Replicas, before)})
		return nil
	})
	if err != nil {
		return out, err
	}
	err = step(func(ctx context.Context) error {
		queue, states, err := webhook.Provision(ctx, nc, cfg.Replicas)
		if err != nil {
			return err
		}
		out = append(out, Resource{Name: webhook.QueueStream, Before: queue, After: after(cfg.Replicas, queue)},
			Resource{Name: webhook.StatesBucket, Before: states, After: after(cfg.Replicas, states)})
		return nil
	})
	if err != nil {
		return out, err
	}
	err = step(func(ctx context.Context) error {
		before, err := events.ProvisionFeeds(ctx, nc, cfg.Replicas)
		if err != nil {
			return err
		}
		out = append(out, Resource{Name: events.FeedsBucket, Before: before, After: after(cfg.Replicas, before)})
		return nil
	})
	return out, err
}

// after is the replicas a resource has once provisioned.
func after(want, before int) int {
	switch {
	case want != 0:
		return want
	case before != 0:
		return before
	}
	return 1
}
