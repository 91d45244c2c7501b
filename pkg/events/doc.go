// Package events is the event log of the service: the schema of its messages,
// their subjects, the JetStream stream that holds them, compare-and-set
// publishing with idempotent retries, and the one replay-then-follow
// consumption that every read model uses.
//
// Every entity has its own subject (football.<kind>.<key>) and every message
// on it carries the entity's full new state, so the last message per subject
// is the current state and a replay costs one message per entity, however
// many edits were made.
//
// # Two ways of publishing once
//
// Publishing must survive a lost acknowledgement (a server restarting, a
// leader moving) without storing a message twice. The service has two
// streams with two needs, and one way for each:
//
//   - The event stream FOOTBALL (this package, Bulk and Publish): every
//     message is a compare-and-set on its subject's last sequence
//     (Nats-Expected-Last-Subject-Sequence), and carries its change's
//     identity in the header Fd-Change (msgID: subject, expected revision,
//     body). A resend after a lost ack fails its compare-and-set if the
//     first copy landed; landed then reads the subject's first revision
//     after the expected one from the leader and compares its Fd-Change:
//     the same change is the first copy, another change a conflict. Not the
//     server's duplicate window (Nats-Msg-Id): the compare-and-set already
//     decides, for ever and not for two minutes, and an import of a million
//     fixtures would fill the window's memory for nothing (the window stays
//     configured only so that stream init changes no existing stream).
//   - The webhook work queue FD_WEBHOOK_QUEUE (internal/webhook): every
//     replica publishes the same derived events, so the same message comes
//     from several publishers, with no subject revision to compare. There
//     the server's duplicate window (Nats-Msg-Id = the event's key, one
//     hour) keeps one copy, which is what a work queue needs.
//
// internal/webhook's key-value states and the feed leases
// (internal/follow) use the buckets' own compare-and-set (UpdateJSON).
//
// # Compatibility
//
// A stream outlives the releases that write it, and while a deployment is
// rolled, replicas and editors of two releases, N and N+1, work on one
// stream. What lets them is one rule for the body of a message, the
// envelope {"v": SchemaVersion, "data": entity}:
//
//   - Within a schema version, a release only adds: a field whose zero
//     value (omitted when zero) means what a release without it does, a
//     kind (a new football.<kind> subject), a header, a value of an
//     enumeration. It never removes or renames a field, never changes a
//     field's type or meaning or a subject's key, and never makes what a
//     stored entity must pass (its Validate in pkg/model) stricter: a
//     message accepted once is accepted by every later release.
//   - A change that cannot be made so raises SchemaVersion. A reader
//     accepts every version up to its own and rejects a newer one, so a
//     release that writes version k+1 comes only after every replica reads
//     it.
//
// What follows for each direction:
//
//   - N+1 reads everything N wrote: a field N did not write is absent and
//     takes its zero value, which means N's behaviour. TestStreamOfAnEarlierRelease
//     (pkg/readmodel) replays a stream written by the ingest of commit
//     36d3060 (22 November 2026: fixtures without legs, table rules before
//     head-to-head modes, phases and thirds, no natural keys, tie-break data
//     or webhooks), the oldest schema and still version 1, and compares it
//     with today's import of the same files and edits.
//   - N reading what N+1 wrote ignores the fields it does not know
//     (encoding/json does; the hand-written decoders of fixtures and squads
//     decline any layout they do not expect and hand it to encoding/json).
//     It rejects a message of a kind it does not know, of a newer schema
//     version, or with a value of an enumeration it does not know: the read
//     model counts it (fd_events_rejected_total), logs its subject and
//     skips it, and the replica goes on serving; that entity is missing from
//     its answers until it is replaced by N+1, whose replay reads it.
//     TestEventsOfANewerRelease (pkg/readmodel) shows each case. Releases
//     before the token pointers (KindClientToken) skipped a kind they did
//     not know without counting it.
//
// Hence the order of an upgrade: replicas first, then editors (deploy/README.md,
// "Upgrades"). Rolled so, no replica meets a message newer than itself,
// and the editors of N that write meanwhile write what N+1 reads.
package events
