package backup

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Provisioner creates every stream and bucket the service keeps on nc,
// as `ingest stream init` does: Stage takes the configurations a restore
// gives from what it made.
type Provisioner func(ctx context.Context, nc *nats.Conn) error

// refuse is the error of a backup that the file's checks passed but that
// cannot be restored as it is.
func (b *File) refuse(format string, args ...any) error {
	return model.Invalidf("backup", b.path, "refused, nothing restored: "+format, args...)
}

// CheckNames refuses a backup whose header names a stream that is not one
// of owned, or one twice: a restore deletes the streams the header names,
// so a header that names another (the budgets' KV_FD_LIMITS, say) must not
// reach the server.
func (b *File) CheckNames(owned []string) error {
	seen := map[string]bool{}
	for _, s := range b.Header.Streams {
		if !slices.Contains(owned, s.Name) {
			return b.refuse("it names stream %s, which a footballd backup does not hold (only %s)", s.Name, strings.Join(owned, ", "))
		}
		if seen[s.Name] {
			return b.refuse("it names stream %s twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// Stage restores the whole backup on a scratch server, in a temporary
// directory, before the real server is touched: the real server cannot
// hold a second copy of a stream under another name (a restore keeps the
// name the snapshot was taken under, and the file store keys its
// checksums by that name), and the server checks what a snapshot holds
// only while it restores it. So a snapshot that is damaged although its
// checksum agrees (one written again with a new checksum), or that the
// server refuses, is refused here, with nothing on the real server
// deleted.
//
// Each stream is restored with the configuration provision gives it on
// the scratch server, which is the configuration the real restore gives:
// the header's configuration is only compared with it, and refused if it
// keeps other messages (subjects, limits, retention). The restored
// stream must have the messages, first and last sequence the header
// says. Stage returns each stream's configuration for Restore.
func (b *File) Stage(ctx context.Context, provision Provisioner) (map[string]jetstream.StreamConfig, error) {
	dir, err := os.MkdirTemp("", "footballd-restore-")
	if err != nil {
		return nil, fmt.Errorf("scratch server for the restore check: %w", err)
	}
	defer os.RemoveAll(dir)
	srv, err := natsembed.Start(natsembed.Options{Dir: dir, Name: "footballd-restore-check"})
	if err != nil {
		return nil, fmt.Errorf("scratch server for the restore check: %w", err)
	}
	defer srv.Stop()
	nc, err := nats.Connect("", nats.InProcessServer(srv))
	if err != nil {
		return nil, fmt.Errorf("scratch server for the restore check: %w", err)
	}
	defer nc.Close()
	if err := provision(ctx, nc); err != nil {
		return nil, fmt.Errorf("scratch server for the restore check: stream init: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	configs := map[string]jetstream.StreamConfig{}
	for i, s := range b.Header.Streams {
		st, err := js.Stream(ctx, s.Name)
		if err != nil {
			return nil, fmt.Errorf("scratch server for the restore check: stream %s: %w", s.Name, err)
		}
		want := st.CachedInfo().Config
		if err := b.keepsAsInit(s, want); err != nil {
			return nil, err
		}
		if err := js.DeleteStream(ctx, s.Name); err != nil {
			return nil, fmt.Errorf("scratch server for the restore check: delete stream %s: %w", s.Name, err)
		}
		config, err := restoreConfig(want, 1, "")
		if err != nil {
			return nil, err
		}
		done, err := restore(ctx, nc, s.Name, config, s.State, b.section(i))
		if err != nil {
			return nil, b.refuse("a server does not restore the snapshot of %s: %v", s.Name, err)
		}
		if err := b.restoredAsBackedUp(s, done, want); err != nil {
			return nil, b.refuse("%v", err)
		}
		configs[s.Name] = want
	}
	return configs, nil
}

// keepsAsInit refuses a stream whose configuration in the header keeps
// other messages than stream init's would: such a header was not written
// by `ingest backup` of a stream stream init made, or was changed since.
func (b *File) keepsAsInit(s Stream, want jetstream.StreamConfig) error {
	var have jetstream.StreamConfig
	if err := json.Unmarshal(s.Config, &have); err != nil {
		return b.refuse("its configuration of %s is not a stream configuration: %v", s.Name, err)
	}
	if field, h, w := keepsOther(have, want); field != "" {
		return b.refuse("its configuration of %s has %s %v where stream init sets %v", s.Name, field, h, w)
	}
	return nil
}

// keepsOther names the first setting in which have keeps other messages
// than want, with both values, or returns "".
func keepsOther(have, want jetstream.StreamConfig) (field string, h, w any) {
	switch {
	case !slices.Equal(have.Subjects, want.Subjects):
		return "subjects", have.Subjects, want.Subjects
	case have.Retention != want.Retention:
		return "retention", have.Retention, want.Retention
	case have.MaxMsgsPerSubject != want.MaxMsgsPerSubject:
		return "max_msgs_per_subject", have.MaxMsgsPerSubject, want.MaxMsgsPerSubject
	case have.MaxMsgs != want.MaxMsgs:
		return "max_msgs", have.MaxMsgs, want.MaxMsgs
	case have.MaxBytes != want.MaxBytes:
		return "max_bytes", have.MaxBytes, want.MaxBytes
	case have.MaxAge != want.MaxAge:
		return "max_age", have.MaxAge, want.MaxAge
	case have.MaxMsgSize != want.MaxMsgSize:
		return "max_msg_size", have.MaxMsgSize, want.MaxMsgSize
	case have.Discard != want.Discard:
		return "discard", have.Discard, want.Discard
	}
	return "", nil, nil
}

// restoredAsBackedUp checks a restored stream against the header: its
// messages, first and last sequence, and that the server kept the
// configuration asked for.
func (*File) restoredAsBackedUp(s Stream, done createResponse, want jetstream.StreamConfig) error {
	got, backedUp := done.State, s.State
	if got.Msgs != backedUp.Msgs || got.LastSeq != backedUp.LastSeq || (got.Msgs > 0 && got.FirstSeq != backedUp.FirstSeq) {
		return fmt.Errorf("the snapshot of %s restores as %s, its header says %s", s.Name, got, backedUp)
	}
	var have jetstream.StreamConfig
	if err := json.Unmarshal(done.Config, &have); err != nil {
		return fmt.Errorf("restore of %s: the server's configuration %q: %w", s.Name, done.Config, err)
	}
	if field, h, w := keepsOther(have, want); field != "" {
		return fmt.Errorf("restore of %s: the server set %s %v, not %v", s.Name, field, h, w)
	}
	return nil
}

// restoreConfig is config as a restore request carries it: on replicas
// servers, with the restore's marker if not "", and without the metadata
// the server keeps for itself.
func restoreConfig(config jetstream.StreamConfig, replicas int, marker string) (json.RawMessage, error) {
	config.Replicas = replicas
	meta := maps.Clone(config.Metadata)
	maps.DeleteFunc(meta, func(k, _ string) bool { return strings.HasPrefix(k, "_nats.") })
	if marker != "" {
		if meta == nil {
			meta = map[string]string{}
		}
		meta[events.RestoredMetadata] = marker
	}
	config.Metadata = meta
	b, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("stream %s: configuration: %w", config.Name, err)
	}
	return b, nil
}
