package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/crypto/bcrypt"
)

// streamInit is the one way to create the stream, the buckets and the
// work queue, or to change their replication: every other process finds
// them as they are.
func streamInit() command {
	var replicas int
	return command{name: "stream init", args: "[--replicas 1|3|5]",
		summary: "create or upgrade the stream, buckets and work queue (as the NATS user admin)",
		example: "FD_NATS_URL=nats://admin:PASSWORD@fd-nats-1:4222 ingest stream init --replicas 3",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&replicas, "replicas", 0, "servers that keep each copy: 1 for one server, 3 on a three-node cluster (default: what exists, 1 when creating)")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			if replicas != 0 && replicas != 1 && replicas != 3 && replicas != 5 {
				return usagef("--replicas %d: must be 1, 3 or 5", replicas)
			}
			if e.global.dryRun {
				return usagef("--dry-run: stream init has nothing to show before it runs; `ingest stream info` shows what exists")
			}
			nc, err := e.operatorConn(ctx)
			if err != nil {
				return err
			}
			defer nc.Close()
			done, err := provision.Run(ctx, nc, events.StreamConfig{Replicas: replicas})
			for _, r := range done {
				switch {
				case r.Before == 0:
					fmt.Fprintf(e.stdout, "%s: created, %d replica(s)\n", r.Name, r.After)
				case r.Before != r.After:
					fmt.Fprintf(e.stdout, "%s: %d → %d replica(s)\n", r.Name, r.Before, r.After)
				default:
					fmt.Fprintf(e.stdout, "%s: %d replica(s), unchanged\n", r.Name, r.After)
				}
			}
			return asAdmin(err)
		}}
}

// operatorConn connects for an operator's command (stream init and info,
// backup, restore), refused at once when the user may not run it.
func (e *env) operatorConn(ctx context.Context) (*nats.Conn, error) {
	nc, err := e.dial().Conn()
	if err != nil {
		return nil, err
	}
	if err := events.CheckOperator(ctx, nc); err != nil {
		nc.Close()
		return nil, asAdmin(err)
	}
	return nc, nil
}

// asAdmin says, after a request the server refused, who may run the
// operators' commands: the refusal is of the user, not of auth.conf.
func asAdmin(err error) error {
	var perm *events.PermissionError
	if errors.As(err, &perm) {
		return fmt.Errorf("NATS user %s may not publish to %q: this needs the NATS user admin (`env admin`, see deploy/README.md)", perm.User, perm.Subject)
	}
	return err
}

// streamInfo shows what exists, for operators: replicas, size, leader.
func streamInfo() command {
	return command{name: "stream info", args: "",
		summary: "show the stream, buckets and work queue: replicas, messages, last sequence, bytes, leader",
		example: "ingest stream info",
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			nc, err := e.operatorConn(ctx)
			if err != nil {
				return err
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				return fmt.Errorf("jetstream: %w", err)
			}
			w := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tREPLICAS\tMESSAGES\tLAST\tBYTES\tLEADER")
			missing := 0
			names := []string{events.DefaultStream, "KV_" + events.BudgetsBucket, webhook.QueueStream, "KV_" + webhook.StatesBucket, "KV_" + events.FeedsBucket}
			for _, name := range names {
				st, err := js.Stream(ctx, name)
				if errors.Is(err, jetstream.ErrStreamNotFound) {
					fmt.Fprintf(w, "%s\t-\t-\t-\t-\tmissing\n", name)
					missing++
					continue
				}
				if err != nil {
					return fmt.Errorf("stream %s: %w", name, asAdmin(events.Explain(nc, err)))
				}
				info := st.CachedInfo()
				leader := "-"
				if info.Cluster != nil && info.Cluster.Leader != "" {
					leader = info.Cluster.Leader
				}
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", name, info.Config.Replicas, info.State.Msgs, info.State.LastSeq, info.State.Bytes, leader)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if missing > 0 {
				return fmt.Errorf("%d of %d %w", missing, len(names), events.ErrNotProvisioned)
			}
			return nil
		}}
}

// passwd makes the bcrypt hash of a NATS user's password, for
// deploy/nats/secrets.conf, without htpasswd or the nats CLI.
func passwd() command {
	var user string
	var generate bool
	return command{name: "passwd", args: "[--user NAME] [--generate]",
		summary: "print the bcrypt hash of a NATS password read on stdin (for deploy/nats/secrets.conf)",
		example: "ingest passwd --user api --generate >> secrets.conf",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&user, "user", "", "print a secrets.conf line for this user (NAME_PASSWORD: \"hash\") instead of the hash alone")
			fs.BoolVar(&generate, "generate", false, "make a random password and print it on stderr, instead of reading one on stdin")
		},
		run: func(_ context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			var password string
			if generate {
				b := make([]byte, 18)
				if _, err := rand.Read(b); err != nil {
					return err
				}
				password = hex.EncodeToString(b)
				fmt.Fprintf(e.stderr, "password: %s\n", password)
			} else {
				// One line, and no more of it than a password can be
				// (bcrypt takes 72 bytes): a stdin that never ends is
				// refused, not read whole.
				line, err := bufio.NewReader(io.LimitReader(e.stdin, 1<<10)).ReadString('\n')
				password = strings.TrimRight(line, "\r\n")
				if password == "" {
					return usagef("password: none on stdin (or use --generate): %v", err)
				}
			}
			if strings.ContainsAny(password, "@:/ ") {
				return usagef("password: must not hold '@', ':', '/' or spaces: it goes in a NATS URL (nats://USER:PASSWORD@host:4222)")
			}
			hash, err := bcrypt.GenerateFromPassword([]byte(password), 11)
			if err != nil {
				return usagef("password: %v", err)
			}
			if user != "" {
				fmt.Fprintf(e.stdout, "%s_PASSWORD: %q\n", strings.ToUpper(user), hash)
				return nil
			}
			fmt.Fprintln(e.stdout, string(hash))
			return nil
		}}
}
