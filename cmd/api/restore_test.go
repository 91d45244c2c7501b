package main

import (
	"context"
	"testing"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
)

// restoreBackup restores plan as `ingest restore` does: the whole file
// staged on a scratch server with stream init's configurations first.
func restoreBackup(ctx context.Context, t *testing.T, b *backup.File, nc *nats.Conn, plan []backup.Step) error {
	t.Helper()
	staged, err := b.Stage(ctx, func(ctx context.Context, nc *nats.Conn) error {
		_, err := provision.Run(ctx, nc, events.StreamConfig{})
		return err
	})
	if err != nil {
		return err
	}
	return b.Restore(ctx, nc, plan, staged, 0, nil)
}
