package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// backedUp are the streams a backup holds: the edits, and the webhooks'
// states (the bucket's stream). Not the request budgets of FD_LIMITS,
// which may start afresh, nor the work queue FD_WEBHOOK_QUEUE: the
// deliveries in flight when the backup was taken are not made after a
// restore (deploy/README.md, Backups).
var backedUp = []string{events.DefaultStream, "KV_" + webhook.StatesBucket}

func backupCommand() command {
	return command{name: "backup", args: "FILE",
		summary: "write a backup of the edits (stream FOOTBALL) and the webhook states (FD_WEBHOOKS) to FILE, as the NATS user admin",
		example: "FD_NATS_URL=nats://admin:PASSWORD@fd-nats-1:4222 ingest backup /var/backups/footballd/$(date +%F).fdbackup",
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one FILE to write")
			}
			if e.global.dryRun {
				return usagef("--dry-run: a backup changes nothing on the server; `ingest stream info` shows what it would take")
			}
			nc, err := e.operatorConn(ctx)
			if err != nil {
				return err
			}
			defer nc.Close()
			start := time.Now()
			tool := "ingest " + buildinfo.Read().String()
			_, err = backup.Write(ctx, nc, pos[0], tool, backedUp, func(s backup.Stream, took time.Duration) {
				fmt.Fprintf(e.stdout, "%s: %s, snapshot %s in %s\n", s.Name, s.State, size(s.Size), took.Round(time.Millisecond))
			})
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("%w; %w", err, events.ErrNotProvisioned)
			}
			if err != nil {
				return asAdmin(err)
			}
			fmt.Fprintf(e.stdout, "wrote %s in %s\n", pos[0], time.Since(start).Round(time.Millisecond))
			return nil
		}}
}

func restoreCommand() command {
	var force bool
	var replicas int
	return command{name: "restore", args: "[--force] [--replicas N] FILE",
		summary: "restore a backup written by `ingest backup`, sequences included, as the NATS user admin; a damaged file is refused whole",
		example: "FD_NATS_URL=nats://admin:PASSWORD@fd-nats-1:4222 ingest restore /var/backups/footballd/2026-03-14.fdbackup",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "replace streams that hold messages (running API replicas notice and replay the restored stream)")
			fs.IntVar(&replicas, "replicas", 0, "servers to keep each stream on: 1, 3 or 5 (default as in the backup)")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one backup FILE")
			}
			if replicas != 0 && replicas != 1 && replicas != 3 && replicas != 5 {
				return usagef("--replicas %d: want 1, 3 or 5", replicas)
			}
			b, err := backup.Open(pos[0])
			if err != nil {
				return err
			}
			defer b.Close()
			if err := b.CheckNames(backedUp); err != nil {
				return err
			}
			h := b.Header
			fmt.Fprintf(e.stdout, "%s: %s, written %s by %s\n", pos[0], size(b.Size), h.Created.Format(time.RFC3339), h.Tool)
			nc, err := e.operatorConn(ctx)
			if err != nil {
				return err
			}
			defer nc.Close()
			plan, err := b.Plan(ctx, nc, force)
			if err != nil {
				return asAdmin(err)
			}
			for _, step := range plan {
				what := "create"
				if step.Existing != nil {
					what = "replace the stream there (" + step.Existing.String() + ") with"
				}
				fmt.Fprintf(e.stdout, "%s: %s %s\n", step.Stream.Name, what, step.Stream.State)
			}
			staged, err := b.Stage(ctx, func(ctx context.Context, nc *nats.Conn) error {
				_, err := provision.Run(ctx, nc, events.StreamConfig{})
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "the whole backup restores, as stream init configures it (checked on a scratch server)")
			if e.global.dryRun {
				fmt.Fprintln(e.stdout, "dry run: nothing restored")
				return nil
			}
			return asAdmin(b.Restore(ctx, nc, plan, staged, replicas, func(r backup.Restored) {
				fmt.Fprintf(e.stdout, "%s: restored, %s, in %s\n", r.Name, r.State, r.Took.Round(time.Millisecond))
			}))
		}}
}

// size is n bytes for people.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
