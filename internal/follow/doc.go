// Package follow keeps feeds current: it is `ingest follow`, one process
// that polls every feed of the stream (model.Feed) on the feed's own
// schedule and publishes what changed through the editor, the one write
// path, so a fetch of an unchanged file publishes nothing.
//
// It owns five things:
//   - Leases. Exactly one follower polls a feed at a time: the holder of
//     the key lease.<feed> of the key-value bucket events.FeedsBucket. The holder
//     renews it every third of its time to live; another follower that
//     sees its revision unchanged for a whole time to live (measured on
//     its own monotonic clock, so no two clocks are compared) takes it
//     over with compare-and-set. Two holders at once (a holder paused
//     past its lease) cost a fetch, never a change published twice: every
//     write of the editor is a compare-and-set too.
//   - The schedule: a feed's next poll, stretched with jittered, capped
//     back-off after failures, kept in its status so that a follower that
//     takes a lease over keeps the schedule. A poll asked for at once
//     (`ingest feed poll`, `feed resume`: the key poll.<feed>, read by the
//     holder each round) comes first; the status records the request it
//     answered, which the asker waits for.
//   - Fetching: conditional GET (If-None-Match, If-Modified-Since; a 304
//     costs a request), timeouts for the connection, the headers and the
//     whole body, a size limit (a declared length over it refused before
//     reading; body.go), a body that falls behind a minimum rate cut
//     off, and all poll slots but one shared by the feeds failing
//     (slots.go); file URLs read a local file under the folders
//     allowed, its size and modification time standing for an ETag; hosts
//     only where the address guard lets them (guard.go).
//   - Live APIs (openligadb): a feed whose format is an API's is polled by
//     its upstream, which chooses each poll's calls by where the matches
//     stand (a matchday in play at the budget's pace, only when its "last
//     changed" date moved; the whole season at the feed's interval when
//     nothing is on). Every call is spent from a budget per source and
//     token, the key budget.<hash> of events.FeedsBucket, shared with compare-and-set
//     by every feed and follower using it; a 429 blocks it until the time
//     the source names.
//   - Status: per feed, in the key status.<feed> of events.FeedsBucket, what `ingest
//     feed show` prints: last fetch and result, validators, matches in the
//     last good file, changes published, last error, held-back names,
//     disagreements (fields whose stored value holds against what the
//     source says: importer.Disagreement), next poll. Only the lease
//     holder writes it, with compare-and-set.
//
// A body it cannot trust is never written: a fetch that fails, a document
// that does not parse, and one that lost more than MaxShrink of the
// matches of the last good one (refused as suspect) leave the data as it
// was and are retried with back-off. Nothing is ever deleted because a
// file shrank: the importer only creates and updates.
package follow
