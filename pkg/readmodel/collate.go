package readmodel

import (
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Names are ordered by the Unicode collation of the root locale, not by
// their bytes: at its first level accents and case do not count, so
// "Álvaro Morata" sorts among the A's (byte order put him after every
// ASCII name, and a top-ten cut of tied scorers dropped him), and they
// only break a tie the letters leave.
//
// A name's key is computed once and kept (nameKeys): collating costs about
// two microseconds a name, a look-up a few tens of nanoseconds, and a
// competition's scorers are sorted again on every read the response cache
// misses. A key is kept for each scorer's name read (a renamed person
// leaves his former name's behind), bounded by the names the stream has
// held; a key depends on the name alone, so every model of the process
// shares them.
var nameKeys sync.Map // name → key

// A collator keeps buffers and is not safe for concurrent use; readers
// borrow one from a pool.
var collators = sync.Pool{New: func() any { return &nameCollator{c: collate.New(language.Und)} }}

type nameCollator struct {
	c   *collate.Collator
	buf collate.Buffer
}

// nameKey is a name's collation key: comparing two keys bytewise orders
// their names.
func nameKey(name string) string {
	if k, ok := nameKeys.Load(name); ok {
		return k.(string)
	}
	nc := collators.Get().(*nameCollator)
	key := string(nc.c.KeyFromString(&nc.buf, name))
	nc.buf.Reset()
	collators.Put(nc)
	nameKeys.Store(name, key)
	return key
}
