// Package webhook delivers the Event-API: it verifies each registered
// webhook's host, then POSTs every event the webhook asks for, signed as
// Standard Webhooks (standardwebhooks.com) says, retrying with growing
// delays for about a day. It runs inside every API replica; JetStream
// makes the replicas share the work so that each event is delivered once
// whatever their number, and nothing is lost when one of them dies.
//
// The work flows through one work-queue stream (QueueStream):
//
//	Publish ─► fd.webhook.event ─► fan-out ─► fd.webhook.deliver.<name> ─► POST
//	sync ────► fd.webhook.verify.<name> ──► GET ?fd_challenge=…
//
// Every replica publishes the events it derives with the event's key as
// message id, so the stream's duplicate window keeps one copy. Three
// durable consumers, each shared by all replicas, hand every message to
// one replica and hand it again to another when it is not acknowledged in
// time. Within a replica, a webhook's deliveries take at most their share
// of the workers, and a receiver that keeps failing is parked (lanes): one
// slow or dead receiver delays no other webhook. The state of each webhook
// (verification, deliveries, failures, circuit) lives in the StatesBucket
// key-value bucket, where `ingest webhook show` reads it.
package webhook
