package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// GetJSON reads the JSON value at key of a key-value bucket into a T, with
// its revision; an absent key is the zero T and revision 0.
func GetJSON[T any](ctx context.Context, kv jetstream.KeyValue, key string) (T, uint64, error) {
	var v T
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return v, 0, nil
	}
	if err != nil {
		return v, 0, err
	}
	if err := json.Unmarshal(e.Value(), &v); err != nil {
		return v, 0, err
	}
	return v, e.Revision(), nil
}

// PutJSON writes v at key over revision rev (0: the key must not exist),
// a compare-and-set; it returns the new revision.
func PutJSON[T any](ctx context.Context, kv jetstream.KeyValue, key string, v T, rev uint64) (uint64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return kv.Create(ctx, key, b)
	}
	return kv.Update(ctx, key, b, rev)
}

// KVConflict reports whether a compare-and-set write to a bucket lost to
// another writer.
func KVConflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || IsConflict(err)
}

// kvContention bounds the rounds of UpdateJSON.
const kvContention = 20

// UpdateJSON changes the JSON value at key with compare-and-set: it reads
// it (the zero T when absent), lets change alter it, and writes it back
// over the revision read, reading again when another writer came between,
// so that writers at once lose nothing. It returns the value written.
func UpdateJSON[T any](ctx context.Context, kv jetstream.KeyValue, key string, change func(*T) error) (T, error) {
	for range kvContention {
		v, rev, err := GetJSON[T](ctx, kv, key)
		if err != nil {
			return v, err
		}
		if err := change(&v); err != nil {
			return v, err
		}
		_, err = PutJSON(ctx, kv, key, v, rev)
		switch {
		case err == nil:
			return v, nil
		case KVConflict(err):
			continue
		}
		return v, err
	}
	var zero T
	return zero, fmt.Errorf("%s: too much contention", key)
}
