package readmodel

import (
	"maps"
	"slices"
)

// cowMap is a map that the writer changes in place between publications and
// that readers share, unchanged, once published. Keys are spread over a
// fixed number of shards. The first change to a shard after a publication
// copies that shard, so publishing costs the shards changed since the
// previous publication, never the whole map; during the initial replay each
// shard is copied once and then filled in place.
type cowMap[K comparable, V any] struct {
	hash   func(K) uint64
	shift  uint
	shards []map[K]V // published shards, or private copies where owned
	owned  []bool    // copied since the last publication: safe to change
	last   *shardTable[K, V]
}

// shardTable is a published, immutable view of a cowMap.
type shardTable[K comparable, V any] struct {
	hash   func(K) uint64
	shift  uint
	shards []map[K]V
}

func newCowMap[K comparable, V any](bits uint, hash func(K) uint64) cowMap[K, V] {
	n := 1 << bits
	return cowMap[K, V]{
		hash:   hash,
		shift:  64 - bits,
		shards: make([]map[K]V, n),
		owned:  make([]bool, n),
		last:   &shardTable[K, V]{hash: hash, shift: 64 - bits, shards: make([]map[K]V, n)},
	}
}

func (c *cowMap[K, V]) shard(k K) int { return int(c.hash(k) >> c.shift) }

func (c *cowMap[K, V]) get(k K) (V, bool) {
	v, ok := c.shards[c.shard(k)][k]
	return v, ok
}

// own returns shard i ready for writing, copying it if it is published.
func (c *cowMap[K, V]) own(i int) map[K]V {
	if !c.owned[i] {
		c.shards[i] = maps.Clone(c.shards[i])
		if c.shards[i] == nil {
			c.shards[i] = make(map[K]V)
		}
		c.owned[i] = true
	}
	return c.shards[i]
}

func (c *cowMap[K, V]) set(k K, v V) { c.own(c.shard(k))[k] = v }

func (c *cowMap[K, V]) del(k K) {
	i := c.shard(k)
	if _, ok := c.shards[i][k]; ok {
		delete(c.own(i), k)
	}
}

// publish returns the current state as an immutable table; the writer's
// next change to any shard copies it first.
func (c *cowMap[K, V]) publish() *shardTable[K, V] {
	if !slices.Contains(c.owned, true) {
		return c.last
	}
	clear(c.owned)
	c.last = &shardTable[K, V]{hash: c.hash, shift: c.shift, shards: slices.Clone(c.shards)}
	return c.last
}

func (t *shardTable[K, V]) get(k K) (V, bool) {
	v, ok := t.shards[t.hash(k)>>t.shift][k]
	return v, ok
}

// Fibonacci hashing spreads dense ids evenly over the shards.
const golden = 0x9E3779B97F4A7C15

func hashInt32(k int32) uint64 { return uint64(uint32(k)) * golden }

func hashUint64(k uint64) uint64 { return (k ^ k>>29) * golden }

// hashFixtureID keeps runs of 64 consecutive fixture ids in one shard. A
// replay (and an import) meets fixtures mostly in id order: consecutive
// look-ups then find one shard's table in cache instead of touching a
// different shard each time, and an import's batch copies a few shards
// rather than one per fixture.
func hashFixtureID(k int32) uint64 { return hashInt32(k >> 6) }
