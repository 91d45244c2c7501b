package webhook_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/prometheus/client_golang/prometheus"
)

// buggyHooks is a read model with a bug: ClientNamed, which only the
// fan-out asks, panics while broken is set.
type buggyHooks struct {
	webhook.Hooks
	broken *atomic.Bool
}

func (b buggyHooks) ClientNamed(name string) (model.Client, bool) {
	if b.broken.Load() {
		panic("hooks bug")
	}
	return b.Hooks.ClientNamed(name)
}

type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestWorkPanicIsRetried: a panic in a worker's message (here the
// fan-out's) does not end the replica: it is logged with its stack and
// counted, and the message is tried again later, so that the event is
// delivered once the bug is gone.
func TestWorkPanicIsRetried(t *testing.T) {
	w := newWorld(t)
	w.add("h", "reg", nil)
	reg := prometheus.NewRegistry()
	var logs lockedLog
	var broken atomic.Bool
	broken.Store(true)
	r := w.start(func(c *webhook.Config) {
		c.Registerer, c.Log = reg, slog.New(slog.NewJSONHandler(&logs, nil))
		c.Hooks = func() webhook.Hooks { return buggyHooks{w.model.Snapshot(), &broken} }
	})
	w.waitState("h", status(webhook.Verified))
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitFor("the fan-out's panic counted", func() bool { return metric(t, reg, "fd_webhook_panics_total", "") >= 1 })
	broken.Store(false)
	w.waitFor("the event delivered once the bug is gone", w.delivered("h", ev))
	log := logs.String()
	if !strings.Contains(log, `"msg":"webhook work panicked; retrying"`) || !strings.Contains(log, `"panic":"hooks bug"`) ||
		!strings.Contains(log, "buggyHooks.ClientNamed") {
		t.Errorf("no panic logged with its stack:\n%s", log)
	}
}
