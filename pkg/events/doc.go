// Package events is the event log of the service: the schema of its messages,
// their subjects, the JetStream stream that holds them, compare-and-set
// publishing with idempotent retries, and the one replay-then-follow
// consumption that every read model uses.
//
// Every entity has its own subject (football.<kind>.<key>) and every message
// on it carries the entity's full new state, so the last message per subject
// is the current state and a replay costs one message per entity, however
// many edits were made.
package events
