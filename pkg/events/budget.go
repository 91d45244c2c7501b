package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Budgets are request budgets every replica shares, kept in a JetStream
// key-value bucket: each key counts what the replicas have taken of one
// caller's budget in one window. A replica takes in leases (Take), so
// that most requests are counted against a lease it already holds,
// without a round trip.
type Budgets struct {
	kv jetstream.KeyValue
}

// BudgetsBucket is the key-value bucket of the budgets.
const BudgetsBucket = "FD_LIMITS"

// budgetsTTL keeps a window's count a little longer than the longest
// window (a day).
const budgetsTTL = 25 * time.Hour

// Budgets opens the budgets bucket as it is (ErrNotProvisioned when it
// does not exist: ProvisionBudgets makes it).
func (s *Store) Budgets(ctx context.Context) (*Budgets, error) {
	var kv jetstream.KeyValue
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		kv, err = s.js.KeyValue(ctx, BudgetsBucket)
		return err
	}, func(err error) bool { return errors.Is(err, jetstream.ErrBucketNotFound) })
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return nil, fmt.Errorf("budgets bucket %s: %w", BudgetsBucket, ErrNotProvisioned)
	case err != nil:
		return nil, fmt.Errorf("budgets bucket %s: %w", BudgetsBucket, Explain(s.nc, err))
	}
	if err := WaitAnswering(ctx, kv); err != nil {
		return nil, err
	}
	return &Budgets{kv: kv}, nil
}

// ProvisionBudgets creates the budgets bucket, or updates it, kept on
// replicas servers (0 keeps what it has, 1 when creating it); it reports
// the replicas it had before (0: none). Provision's companion.
func ProvisionBudgets(ctx context.Context, nc *nats.Conn, replicas int) (before int, err error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, BudgetsBucket)
	switch {
	case err == nil:
		st, err := kv.Status(ctx)
		if err != nil {
			return 0, fmt.Errorf("budgets bucket %s: %w", BudgetsBucket, Explain(nc, err))
		}
		before = st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas
	case !errors.Is(err, jetstream.ErrBucketNotFound):
		return 0, fmt.Errorf("budgets bucket %s: %w", BudgetsBucket, Explain(nc, err))
	}
	_, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      BudgetsBucket,
		Description: "request budgets taken by the API replicas, per caller and window",
		History:     1,
		TTL:         budgetsTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cmp.Or(replicas, before, 1),
	})
	if err != nil {
		return before, fmt.Errorf("budgets bucket %s: %w", BudgetsBucket, Explain(nc, err))
	}
	return before, nil
}

// Take adds up to want to the count at key, never beyond limit, and
// returns how much it got (0 when the budget is spent) and the count
// afterwards, everybody's takes included. The count is updated with
// compare-and-set, so replicas taking at once never take more than limit
// between them.
func (b *Budgets) Take(ctx context.Context, key string, limit, want int) (got, used int, err error) {
	for range contention {
		var rev uint64
		used = 0
		entry, err := b.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return 0, 0, fmt.Errorf("budget %s: %w", key, err)
		default:
			rev = entry.Revision()
			if used, err = strconv.Atoi(string(entry.Value())); err != nil {
				return 0, 0, fmt.Errorf("budget %s: count %q: %w", key, entry.Value(), err)
			}
		}
		got = min(want, limit-used)
		if got <= 0 {
			return 0, used, nil
		}
		value := []byte(strconv.Itoa(used + got))
		if rev == 0 {
			_, err = b.kv.Create(ctx, key, value)
		} else {
			_, err = b.kv.Update(ctx, key, value, rev)
		}
		switch {
		case err == nil:
			return got, used + got, nil
		case IsConflict(err):
			// Another replica took meanwhile (or this replica read a
			// follower behind the leader): read again.
			continue
		}
		return 0, 0, fmt.Errorf("budget %s: %w", key, err)
	}
	return 0, 0, fmt.Errorf("budget %s: too much contention", key)
}

// kvAnswerWait bounds how long a bucket just created or opened may take to
// answer reads.
const kvAnswerWait = 30 * time.Second

// WaitAnswering returns once kv answers a read. A bucket kept on several
// servers is created before its servers serve it: reads in the first
// moments get "no responders" (its direct-get subscriptions are not up yet)
// or time out while its leader is elected, and a replica that went on
// would count every early request against a local lease instead.
func WaitAnswering(ctx context.Context, kv jetstream.KeyValue) error {
	ctx, cancel := context.WithTimeout(ctx, kvAnswerWait)
	defer cancel()
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		_, err := kv.Get(ctx, "probe")
		if err == nil || errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bucket %s does not answer: %w", kv.Bucket(), err)
		case <-time.After(wait):
		}
	}
}
