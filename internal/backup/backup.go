// Package backup takes and restores backups of the JetStream streams the
// service keeps. It owns both ends of JetStream's snapshot protocol
// ($JS.API.STREAM.SNAPSHOT and $JS.API.STREAM.RESTORE, which nats.go does
// not expose) and the backup file: one file per backup, its header naming
// the streams, their configurations and the tool that wrote it, then each
// stream's snapshot as the server made it, with the size and checksum that
// let a restore refuse a damaged file before it changes anything.
//
// It lives apart from pkg/events, which every API replica imports: only
// the operators' tool (cmd/ingest, as the NATS user admin) takes or
// restores backups, and the snapshot protocol knows nothing of the
// events' schema.
//
// The file, format 1:
//
//	footballd-backup 1\n
//	{"tool":…,"created":…,"streams":[{"name","config","state","size","sha256"},…]}\n
//	sha256 <hex SHA-256 of the header line, its newline included>\n
//	the first stream's snapshot (size bytes), then the next stream's, …
//
// A snapshot is the server's own (S2-compressed, checksummed): the
// stream's state and every message with its subject, headers, sequence and
// time. A restored stream therefore has the sequences it had, and what is
// derived from them (SSE ids, ETags) stays the same.
//
// A restore changes nothing on the server until the whole file has been
// restored elsewhere: Open checks the file, CheckNames the streams it
// names, Plan what exists, Stage restores every snapshot on a scratch
// server with the configuration stream init gives it, and only then does
// Restore replace the streams on the server, one by one, having
// snapshotted the ones it replaces to put them back if the server fails
// it (rollback.go).
package backup

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// magic is the file's first line: what it is, and its format.
const magic = "footballd-backup 1\n"

// maxHeader bounds the header line: a few streams' configurations take a
// few kilobytes, and a damaged file must not make a restore read
// gigabytes looking for a newline.
const maxHeader = 1 << 20

// Header is the file's second line: what the file holds. The third line
// is its checksum.
type Header struct {
	// Tool is the program and version that wrote the file.
	Tool    string    `json:"tool"`
	Created time.Time `json:"created"`
	Streams []Stream  `json:"streams"`
}

// Stream is one stream of a backup.
type Stream struct {
	Name string `json:"name"`
	// Config is the stream's configuration as the server gave it with
	// the snapshot, and as a restore gives it back.
	Config json.RawMessage `json:"config"`
	State  State           `json:"state"`
	// Size and SHA256 are the snapshot's, as the file holds it.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// State is a stream's extent when its snapshot began, in the server's own
// terms (a restore request carries it).
type State struct {
	Msgs      uint64    `json:"messages"`
	Bytes     uint64    `json:"bytes"`
	FirstSeq  uint64    `json:"first_seq"`
	FirstTime time.Time `json:"first_ts"`
	LastSeq   uint64    `json:"last_seq"`
	LastTime  time.Time `json:"last_ts"`
}

func (s State) String() string {
	switch s.Msgs {
	case 0:
		return fmt.Sprintf("no messages, last sequence %d", s.LastSeq)
	case 1:
		return fmt.Sprintf("1 message, sequence %d", s.LastSeq)
	}
	return fmt.Sprintf("%d messages, sequences %d-%d", s.Msgs, s.FirstSeq, s.LastSeq)
}

// Write backs up streams, in order, to the file at path. The file is
// replaced only once the backup is whole, so a failed backup leaves nothing
// that looks like one; it is readable by its owner only, as the streams
// hold webhook signing secrets. report, if not nil, is told of each
// stream once its snapshot is taken.
//
// The snapshots go to a scratch file beside path first: the header, which
// comes first, holds their sizes and checksums.
func Write(ctx context.Context, nc *nats.Conn, path, tool string, streams []string, report func(Stream, time.Duration)) (Header, error) {
	h := Header{Tool: tool, Created: time.Now().UTC()}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	scratch, err := os.CreateTemp(dir, "."+base+".*.snapshots")
	if err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	defer os.Remove(scratch.Name())
	defer scratch.Close()
	for _, name := range streams {
		start := time.Now()
		sum := sha256.New()
		n := &counter{}
		resp, err := snapshot(ctx, nc, name, io.MultiWriter(scratch, sum, n))
		if err != nil {
			return h, err
		}
		s := Stream{Name: name, Config: resp.Config, State: resp.State, Size: n.n, SHA256: hex.EncodeToString(sum.Sum(nil))}
		h.Streams = append(h.Streams, s)
		if report != nil {
			report(s, time.Since(start))
		}
	}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	out, err := os.CreateTemp(dir, "."+base+".*.partial")
	if err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	var line bytes.Buffer
	// The header is read by people too (head -2): subjects keep their ">".
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return h, fmt.Errorf("backup %s: header: %w", path, err)
	}
	w.WriteString(magic)
	w.Write(line.Bytes())
	w.WriteString(headerSum(line.Bytes()))
	if _, err := io.Copy(w, scratch); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	if err := out.Sync(); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	if err := os.Rename(out.Name(), path); err != nil {
		return h, fmt.Errorf("backup %s: %w", path, err)
	}
	// The rename is durable once the directory is.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return h, nil
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// File is a backup opened for a restore, checked whole.
type File struct {
	Header Header
	path   string
	f      *os.File
	// offsets are where each stream's snapshot begins.
	offsets []int64
	// Size is the file's size.
	Size int64
}

// Open opens the backup at path and checks it whole: the header against
// its checksum, then the size and checksum of every snapshot, then that
// nothing follows the last.
// Damage (a copy cut short, a changed byte, bytes added) is an Invalid
// error that names it, found before a restore changes anything.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, model.Invalidf("backup", path, "cannot be read: %v", errors.Unwrap(err))
	}
	b, err := check(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return b, nil
}

func check(f *os.File, path string) (*File, error) {
	damaged := func(format string, args ...any) error {
		return model.Invalidf("backup", path, "damaged, nothing restored: "+format, args...)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("backup %s: %w", path, err)
	}
	r := bufio.NewReaderSize(io.LimitReader(f, int64(len(magic))+maxHeader), 64<<10)
	first := make([]byte, len(magic))
	if _, err := io.ReadFull(r, first); err != nil || string(first) != magic {
		return nil, model.Invalidf("backup", path, "is not a footballd backup (its first line is not %q)", magic[:len(magic)-1])
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, damaged("its header ends early (%d bytes, no end of line)", len(line))
	}
	sum, err := r.ReadString('\n')
	if err != nil {
		return nil, damaged("its header's checksum line ends early")
	}
	if sum != headerSum(line) {
		return nil, damaged("its header does not match its checksum")
	}
	b := &File{path: path, f: f, Size: fi.Size()}
	if err := json.Unmarshal(line, &b.Header); err != nil {
		return nil, damaged("its header is not JSON: %v", err)
	}
	if len(b.Header.Streams) == 0 {
		return nil, damaged("its header names no stream")
	}
	off := int64(len(magic) + len(line) + len(sum))
	for _, s := range b.Header.Streams {
		if s.Name == "" || len(s.Config) == 0 || s.Size < 0 {
			return nil, damaged("its header has a stream without name, configuration or size")
		}
		sum := sha256.New()
		n, err := io.Copy(sum, io.NewSectionReader(f, off, s.Size))
		if err != nil {
			return nil, fmt.Errorf("backup %s: %w", path, err)
		}
		if n < s.Size {
			return nil, damaged("truncated: the snapshot of %s has %d of its %d bytes", s.Name, n, s.Size)
		}
		if got := hex.EncodeToString(sum.Sum(nil)); got != s.SHA256 {
			return nil, damaged("the snapshot of %s does not match its checksum", s.Name)
		}
		b.offsets = append(b.offsets, off)
		off += s.Size
	}
	if b.Size != off {
		return nil, damaged("%d bytes follow the last snapshot", b.Size-off)
	}
	return b, nil
}

// headerSum is the line that follows the header line: its checksum.
func headerSum(line []byte) string {
	sum := sha256.Sum256(line)
	return "sha256 " + hex.EncodeToString(sum[:]) + "\n"
}

// Close closes the file.
func (b *File) Close() error { return b.f.Close() }

// Step is what a restore does to one stream: create it, or replace
// the one that exists.
type Step struct {
	Stream Stream
	// Existing is the stream on the server, nil if there is none.
	Existing *State
}

// Plan looks up the backup's streams on the server. A stream that holds
// messages is refused (a Conflict naming it) unless force; an empty one,
// as `ingest stream init` or a replica leaves it, is replaced.
func (b *File) Plan(ctx context.Context, nc *nats.Conn, force bool) ([]Step, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	var plan []Step
	for _, s := range b.Header.Streams {
		step := Step{Stream: s}
		lctx, cancel := context.WithTimeout(ctx, apiWait)
		st, err := js.Stream(lctx, s.Name)
		cancel()
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
		case err != nil:
			return nil, fmt.Errorf("look up stream %s: %w", s.Name, events.Explain(nc, err))
		default:
			have := st.CachedInfo().State
			step.Existing = &State{Msgs: have.Msgs, Bytes: have.Bytes, FirstSeq: have.FirstSeq, LastSeq: have.LastSeq}
			if have.Msgs > 0 && !force {
				return nil, &model.Error{Code: model.Conflict, Field: "stream", Value: s.Name,
					Message: fmt.Sprintf("exists with %s; nothing restored (restore with --force to replace it: running API replicas replay the restored stream)", step.Existing)}
			}
		}
		plan = append(plan, step)
	}
	return plan, nil
}

// Restored is a stream as a restore left it.
type Restored struct {
	Name  string
	State State
	Took  time.Duration
}

// Restore carries out plan with the configurations Stage returned
// (staged): for each stream, in the file's order, it deletes the one on
// the server if there is one, restores the snapshot with its configuration
// (on replicas servers, or as many as the backup's had if 0), marked as
// restored now (events.RestoredMetadata, which tells running replicas to
// replay it), and checks that the stream has the messages and sequences it
// had. report, if not nil, is told of each stream once restored.
//
// Stage has restored the whole file before, and every configuration is
// made before the first deletion, so what can fail here is the server
// itself (its disk, its limits, a leader lost). For that, each stream to
// be replaced is snapshotted to a scratch file first; a failure puts every
// stream the restore touched back as it was, from those snapshots, and the
// error says so. Between a stream's deletion and the end of its restore
// the stream is missing or partial. While it runs, the stream FD_RESTORING
// keeps the account's storage (see hold).
func (b *File) Restore(ctx context.Context, nc *nats.Conn, plan []Step, staged map[string]jetstream.StreamConfig, replicas int, report func(Restored)) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	configs, servers, err := b.restoreConfigs(nc, plan, staged, replicas)
	if err != nil {
		return err
	}
	old, err := save(ctx, nc, plan)
	if err != nil {
		return fmt.Errorf("%w; nothing restored", err)
	}
	defer old.close()
	release, err := hold(ctx, js, servers)
	if err != nil {
		return err
	}
	if err := b.replaceAll(ctx, js, nc, plan, configs, staged, old, report); err != nil {
		if rerr := release(); rerr != nil {
			return fmt.Errorf("%w; %v", err, rerr)
		}
		return err
	}
	if err := release(); err != nil {
		return fmt.Errorf("every stream was restored, but: %w", err)
	}
	return nil
}

// replaceAll replaces plan's streams in order; on a failure it puts
// every stream back as old saved it.
func (b *File) replaceAll(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, plan []Step, configs []json.RawMessage,
	staged map[string]jetstream.StreamConfig, old *saved, report func(Restored)) error {
	for i, step := range plan {
		start := time.Now()
		done, err := b.replace(ctx, js, nc, step, i, configs[i], staged[step.Stream.Name])
		if err != nil {
			if perr := old.putBack(ctx, js, nc, plan[:i+1]); perr != nil {
				return fmt.Errorf("%w; putting the streams back failed too (%v): once the server is well, restore again", err, perr)
			}
			return fmt.Errorf("%w; every stream was put back as it was", err)
		}
		if report != nil {
			report(Restored{Name: step.Stream.Name, State: done.State, Took: time.Since(start)})
		}
	}
	return nil
}

// replace deletes the stream of step, if there is one, and restores the
// i-th snapshot in its place with config, checked against the header and
// the staged configuration.
func (b *File) replace(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, step Step, i int, config json.RawMessage, staged jetstream.StreamConfig) (createResponse, error) {
	s := step.Stream
	if step.Existing != nil {
		dctx, cancel := context.WithTimeout(ctx, apiWait)
		err := js.DeleteStream(dctx, s.Name)
		cancel()
		if err != nil {
			return createResponse{}, fmt.Errorf("delete stream %s before restoring it: %w", s.Name, err)
		}
	}
	done, err := restore(ctx, nc, s.Name, config, s.State, b.section(i))
	if err == nil {
		err = b.restoredAsBackedUp(s, done, staged)
	}
	return done, err
}

// restoreConfigs are the configurations Restore sends for plan's streams,
// all made before anything is deleted: a configuration the server would
// refuse (more replicas than a server outside a cluster keeps) is refused
// with every stream as it was. servers is the most replicas of any.
func (b *File) restoreConfigs(nc *nats.Conn, plan []Step, staged map[string]jetstream.StreamConfig, replicas int) (configs []json.RawMessage, servers int, err error) {
	marker := time.Now().UTC().Format(time.RFC3339Nano)
	servers = 1
	for _, step := range plan {
		s := step.Stream
		want, ok := staged[s.Name]
		if !ok {
			return nil, 0, fmt.Errorf("restore of %s: no configuration staged for it", s.Name)
		}
		n := replicas
		if n == 0 {
			if n, err = backedUpReplicas(s.Config); err != nil {
				return nil, 0, b.refuse("its configuration of %s: %v", s.Name, err)
			}
		}
		if n > 1 && nc.ConnectedClusterName() == "" {
			return nil, 0, b.refuse("%s was kept on %d servers and this server is not in a cluster: restore with --replicas 1", s.Name, n)
		}
		config, err := restoreConfig(want, n, marker)
		if err != nil {
			return nil, 0, err
		}
		configs = append(configs, config)
		servers = max(servers, n)
	}
	return configs, servers, nil
}

// section is the snapshot of the backup's i-th stream.
func (b *File) section(i int) io.Reader {
	return io.NewSectionReader(b.f, b.offsets[i], b.Header.Streams[i].Size)
}

// backedUpReplicas is the replicas a stream's configuration in the header
// has (1 if it says none).
func backedUpReplicas(config json.RawMessage) (int, error) {
	var c struct {
		Replicas int `json:"num_replicas"`
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return 0, err
	}
	return max(c.Replicas, 1), nil
}
