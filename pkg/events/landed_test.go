package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/relay"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startStore starts one embedded server, or three routed to each other
// (a cluster, the stream at three replicas), and connects a store. Each
// node takes ports of its own; the nodes of a cluster are routed to the
// three through relays the test holds, each leading to its node once it
// is up, as natstest.StartCluster does (which this package's internal
// tests cannot use: natstest imports this package).
func startStore(t *testing.T, nodes int) *Store {
	t.Helper()
	relays := make([]*relay.Relay, nodes)
	var routes, urls []string
	for i := range relays {
		relays[i] = relay.Start(t)
		routes = append(routes, "nats://"+relays[i].Addr())
	}
	for i := range nodes {
		o := natsembed.Options{Dir: t.TempDir(), Name: fmt.Sprintf("n%d", i+1)}
		if nodes > 1 {
			o.Cluster = &natsembed.Cluster{Name: "football", Routes: routes}
		}
		srv, err := natsembed.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Stop)
		if nodes > 1 {
			relays[i].Forward(srv.ClusterAddr().String())
		}
		urls = append(urls, srv.URL())
	}
	// A loop of its own, not natstest.CheckFor: natstest imports this
	// package, which its internal tests cannot import back.
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := provisioned(ctx, urls[0], nodes)
		cancel()
		if err == nil {
			t.Cleanup(s.Close)
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// provisioned makes the stream at replicas, as `ingest stream init` does,
// and opens a store on it.
func provisioned(ctx context.Context, url string, replicas int) (*Store, error) {
	nc, err := Dial{URL: url, Name: "landed"}.Conn()
	if err != nil {
		return nil, err
	}
	if _, err := Provision(ctx, nc, StreamConfig{Replicas: replicas}); err != nil {
		nc.Close()
		return nil, err
	}
	s, err := Open(ctx, nc, StreamConfig{})
	if err != nil {
		nc.Close()
	}
	return s, err
}

func testTeam(t *testing.T, b *Bulk, id int, name string, expected uint64) *nats.Msg {
	t.Helper()
	body, err := Encode(&model.Team{ID: id, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return b.natsMsg(Msg{Subject: Subject(KindTeam, strconv.Itoa(id)), Body: body, Expected: expected})
}

// TestResendMeetsItsFirstCopyInProcess: on a cluster, a resend that
// reaches the stream's leader while its first copy is still being stored
// (its ack lost, as when the leader moves) is refused as a compare-and-set
// that failed with nothing stored to blame (the server's "wrong last
// sequence" without a sequence): it must end with the first copy's
// sequence, never as a conflict. Each round sends a first copy without
// waiting and the resend right behind it, as a Bulk does after a lost ack;
// the last rounds send the resend as a plain request, to see that the
// server did refuse it while the first copy was in process.
func TestResendMeetsItsFirstCopyInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	s := startStore(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const rounds = 20
	for i := range rounds {
		b := s.Bulk()
		first := testTeam(t, b, i+1, fmt.Sprintf("team %d", i), 0)
		var got []uint64
		done := func(seq uint64, err error) {
			if err != nil {
				t.Errorf("round %d: %v", i, err)
			}
			got = append(got, seq)
		}
		if err := b.send(ctx, &inflight{msg: first, done: done, acks: b.acks}); err != nil {
			t.Fatal(err)
		}
		// The resend is the same message (a copy: a send sets its reply
		// subject).
		again := *first
		if err := b.send(ctx, &inflight{msg: &again, done: done, acks: b.acks, resent: true}); err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] == 0 || got[0] != got[1] {
			t.Errorf("round %d: done with %v, want both copies done with the first's sequence", i, got)
		}
	}
	inProcess := 0
	for i := range rounds {
		b := s.Bulk()
		first := testTeam(t, b, rounds+i+1, fmt.Sprintf("team %d", i), 0)
		first.Reply = s.nc.NewInbox()
		if err := s.nc.PublishMsg(first); err != nil {
			t.Fatal(err)
		}
		again := *first
		again.Reply = ""
		r, err := s.nc.RequestMsg(&again, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var apiErr *jetstream.APIError
		if _, err := readAck(r); errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant {
			inProcess++
		}
	}
	t.Logf("%d of %d plain resends refused while their first copy was in process", inProcess, rounds)
	if inProcess == 0 {
		t.Error("no resend met its first copy still being stored: the test did not test it")
	}
}

// TestLanded: which revision a resend's failed compare-and-set finds
// decides its outcome: its first copy, even with a later write on top;
// another writer's write; or nothing yet.
func TestLanded(t *testing.T) {
	s := startStore(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := s.Bulk()
	publish := func(m *nats.Msg) uint64 {
		t.Helper()
		copied := *m
		ack, err := s.js.PublishMsg(ctx, &copied)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	ours := testTeam(t, b, 100, "ours", 0)
	oursSeq := publish(ours)
	laterSeq := publish(testTeam(t, b, 100, "later", oursSeq))
	theirs := testTeam(t, b, 101, "theirs", 0)
	theirsSeq := publish(theirs)
	for _, c := range []struct {
		name     string
		msg      *nats.Msg
		expected uint64
		seq      uint64
		ok       bool
		err      error
	}{
		{"first copy stored, a later write on top", ours, 0, oursSeq, true, nil},
		{"another writer's write stored", testTeam(t, b, 101, "ours", 0), 0, theirsSeq, false, nil},
		{"nothing stored after the expected revision", testTeam(t, b, 100, "ours again", laterSeq), laterSeq, 0, false, errInProcess},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq, ok, err := s.landed(ctx, c.msg, c.expected)
			if seq != c.seq || ok != c.ok || !errors.Is(err, c.err) {
				t.Errorf("landed: %d, %v, %v; want %d, %v, %v", seq, ok, err, c.seq, c.ok, c.err)
			}
		})
	}
}
