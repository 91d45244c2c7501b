// Package readmodel is the in-memory projection every API replica holds: it
// applies the event stream and answers every read of the v1 and v4 APIs from
// indexes, league tables and head-to-head aggregates built once per change,
// never per request.
//
// # Writer and readers
//
// One goroutine applies events in stream order (Run's writer, or a caller
// of Apply); Run decodes messages on several goroutines before that, since
// decoding is most of a replay's cost and touches no state. Tick and
// deferred publication join the writer through Model.mu, the package's only
// lock, which readers never take. Readers call Model.Snapshot, one atomic
// load, and see a complete, immutable world:
//
//   - Every fixture is a compact record that is never changed; an edit makes
//     a new record. Fixture lists (per competition, team, UTC day and pair of
//     teams) are slices of record pointers, replaced, never written.
//   - Maps keyed by id are sharded copy-on-write maps (cowMap): the first
//     change to a shard after a publication copies that shard, so the
//     writer changes private copies while readers go on using the published
//     ones.
//   - Changes accumulate in a batch. Publication rebuilds the derived data
//     of what the batch touched (each touched competition's lists, matchday
//     index, tables at every matchday and current matchday; each touched
//     team's fixtures; the touched days and pairs), assembles a new world
//     that shares everything else with the previous one, and swaps one
//     atomic pointer. A reader therefore sees every event entirely or not
//     at all.
//
// Goals and venues, rare, are kept beside the compact records in a
// copy-on-write table keyed by fixture id, as are persons, squad players
// and the fixtures each person scored in; a competition with goals tallies
// its scorers when it is rebuilt (goals.go). Readers order tied scorers by
// a Unicode collation key of the name, made once per name and kept in a
// process-wide sync.Map (collate.go): no lock of the model's is held
// around it.
//
// One thing is known ahead of the writer: a client whose token a request
// brought before the writer applied the client, read from the stream's
// leader by the HTTP server and handed over with Model.LearnClient. It is
// kept beside the world, in a map replaced whole with a compare-and-swap
// (no lock), and a snapshot believes it only while the snapshot is behind
// the revision it was read at; the writer's own apply of that revision
// then decides, as it would have without it.
//
// During the initial replay nothing is published: the batch holds the
// whole stream and MarkReady builds every competition once. Afterwards each
// event is published when applied; Run holds a change back for at most
// Config.MaxDelay while more messages are already waiting, so that a burst
// is published in a few steps instead of one per message.
//
// # Tables
//
// A competition's tables at every matchday are built in one pass over its
// regular fixtures in matchday order (buildTables): totals accumulate and
// each group is ordered (the ranker, rank.go) whenever a matchday brought a
// result. The rules are the competition's data (model.TableRules): the
// ranker applies its tie-breakers, its head-to-head mode and the editors'
// tie-break data and order. A league with phases splits after its regular
// season on the table of that matchday: sections keep counting in the one
// table and are ranked within their places; each play-off phase gets a
// builder of its own whose teams start from the points they carry.
// Tournaments rank their thirds when their rules say so. A change at
// matchday k rebuilds from k on (the split included, as it depends only on
// earlier results); tables before k are reused. A table once built is
// never changed, so a query reads it in place (Snapshot.TableView) and
// copies a row only to hand it out.
//
// # Push events
//
// With Config.Events set, each live message's changes to fixtures and
// competitions become push events (push.go), derived from the state
// before and after the message so that every replica derives the same
// ones. Events are handed over after the publication that shows them,
// with Model.mu held: a receiver takes its own locks after Model.mu and
// never calls back into the model.
//
// # A replaced stream
//
// A stream restored from a backup, or deleted and made again, is not the
// one the model applied (events.ErrStreamReplaced): Run then restarts the
// model (Restart) after the events of the old stream it has, which drops
// the writer's state for a new writer and makes the model not ready, and
// the replay of the new stream ends in MarkReady as at start. Readers keep
// the world published before until then (the HTTP server answers 503
// meanwhile). The new writer's versions go on from the old one's, so a
// response cached under a version is never served for the new stream.
//
// # A stalled consumer
//
// A consumer that stops delivering what the stream holds for it
// (events.StallError, after events.StreamConfig.StallAfter) is replaced
// by Consume with one resuming after the last event delivered. Run
// records it: Stats says CatchingUp, with the reason, until the model has
// applied the stream's last message as it was then, and the HTTP server's
// /readyz reports not ready meanwhile; data requests are still served,
// from a snapshot a few seconds old.
//
// Every entity remembers the stream sequence that set it, and an event not
// newer than that is ignored, so replays and duplicates are harmless. A
// message that does not decode into a valid entity is counted and skipped:
// a bad message must not stop a replica.
package readmodel
