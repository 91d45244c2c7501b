package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sign returns the webhook-signature header of a delivery as Standard
// Webhooks defines it: v1, and the base64 HMAC-SHA256 of
// "<id>.<timestamp>.<body>" keyed with the secret's key.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := model.WebhookKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

var userAgent = "footballd-webhooks/" + buildinfo.Read().Version

// maxAnswer bounds what is read of an answer.
const maxAnswer = 64 << 10

// verify checks a registration's host: GET url?fd_challenge=<random> must
// answer 200 with exactly the challenge. Until it has, nothing is
// delivered; a host that has not passed within VerifyFor is given up.
func (d *Dispatcher) verify(ctx context.Context, msg jetstream.Msg) {
	var v verification
	if !d.decode(msg, "verification", &v) {
		return
	}
	w, reg := d.find(v.Webhook, v.Created)
	switch reg {
	case gone:
		_ = msg.Term()
		return
	case unknown:
		_ = msg.NakWithDelay(d.cfg.FirstRetry)
		return
	}
	st, found, err := d.states.Get(ctx, w.Name, w.Created)
	if err != nil {
		d.retryLater(msg, time.Second, "verification", err)
		return
	}
	if found && st.Status != Pending {
		_ = msg.Ack() // decided by another replica
		return
	}
	age, _ := d.age(msg)
	verr := d.challenge(ctx, w.URL)
	if ctx.Err() != nil {
		_ = msg.Nak()
		return
	}
	now := d.cfg.Now()
	giveUp := verr != nil && age+d.retryDelay(age) > d.cfg.VerifyFor
	_, err = d.states.update(ctx, w.Name, w.Created, now, func(s *State) error {
		switch {
		case verr == nil:
			s.set(Verified, now)
			s.Verification = ""
		case giveUp:
			s.set(VerificationFailed, now)
			s.Verification = verr.Error()
		default:
			s.Verification = verr.Error()
		}
		return nil
	})
	if err != nil {
		d.retryLater(msg, time.Second, "verification", err)
		return
	}
	switch {
	case verr == nil:
		d.metrics.verification.WithLabelValues("verified").Inc()
		d.verified.Store(regKey(w.Name, w.Created), true)
		_ = msg.Ack()
	case giveUp:
		d.metrics.verification.WithLabelValues("gave_up").Inc()
		d.cfg.Log.Warn("webhook verification given up", "webhook", w.Name, "err", verr.Error())
		_ = msg.Term()
	default:
		d.metrics.verification.WithLabelValues("failed").Inc()
		_ = msg.NakWithDelay(d.retryDelay(age))
	}
}

// challenge makes one verification request.
func (d *Dispatcher) challenge(ctx context.Context, raw string) error {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	challenge := hex.EncodeToString(b)
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	q := u.Query()
	q.Set("fd_challenge", challenge)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("verification request: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := d.client.Do(req)
	if err != nil {
		return fmt.Errorf("verification: %w", withoutURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(len(challenge))+1))
	if err != nil {
		return fmt.Errorf("verification: %w", err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != challenge {
		return fmt.Errorf("verification: answered %d without the challenge as its body", resp.StatusCode)
	}
	return nil
}

// withoutURL drops the URL a request error repeats: the state shows the
// webhook's URL apart, and a challenge in it is of no use to anybody.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func regKey(name string, created time.Time) string {
	return name + "@" + strconv.FormatInt(created.UnixNano(), 10)
}

// status returns the status of a registration, from this replica's memory
// once it is verified.
func (d *Dispatcher) status(ctx context.Context, name string, created time.Time) (Status, error) {
	if _, ok := d.verified.Load(regKey(name, created)); ok {
		return Verified, nil
	}
	st, found, err := d.states.Get(ctx, name, created)
	if err != nil || !found {
		return Pending, err
	}
	if st.Status == Verified || st.Status == Failing {
		d.verified.Store(regKey(name, created), true)
	}
	return st.Status, nil
}

// deliver makes one delivery attempt. Deliveries to a host not yet
// verified wait (they are handed back, to look again after FirstRetry);
// those to a host whose verification failed are dropped and counted.
func (d *Dispatcher) deliver(ctx context.Context, msg jetstream.Msg) {
	var dl delivery
	if !d.decode(msg, "delivery", &dl) {
		return
	}
	w, reg := d.find(dl.Webhook, dl.Created)
	switch reg {
	case gone:
		d.metrics.deliveries.WithLabelValues(resultRemoved).Inc()
		_ = msg.Term()
		return
	case unknown:
		_ = msg.NakWithDelay(d.cfg.FirstRetry)
		return
	}
	status, err := d.status(ctx, w.Name, w.Created)
	switch {
	case err != nil:
		d.retryLater(msg, time.Second, "delivery", err)
		return
	case status == Pending:
		_ = msg.NakWithDelay(d.cfg.FirstRetry)
		return
	case status == VerificationFailed:
		d.metrics.deliveries.WithLabelValues(resultUnverified).Inc()
		d.note(w, func(s *State) { s.Dropped++ })
		_ = msg.Term()
		return
	}
	age, attempt := d.age(msg)
	key := regKey(w.Name, w.Created)
	start := d.cfg.Now()
	switch v, delay := d.lanes.admit(key, start); v {
	case busy:
		// Another worker takes the next message meanwhile: a webhook's
		// deliveries never hold more than their share of the workers.
		d.metrics.deferred.WithLabelValues(deferBusy).Inc()
		_ = msg.NakWithDelay(delay)
		return
	case parked:
		if age+delay > d.cfg.RetryFor {
			d.giveUp(msg, w, dl, attempt, nil, start)
			return
		}
		d.metrics.deferred.WithLabelValues(deferParked).Inc()
		d.note(w, func(s *State) { s.Parked++ })
		_ = msg.NakWithDelay(delay)
		return
	}
	code, perr := d.post(ctx, w, dl.Event)
	now := d.cfg.Now()
	if ctx.Err() != nil {
		// This replica is stopping: hand the delivery back at once.
		d.lanes.done(key, start, now, abandoned)
		_ = msg.Nak()
		return
	}
	a := Attempt{Time: start.UTC(), ID: dl.Event.Key, Attempt: attempt, Status: code, Duration: now.Sub(start).Seconds()}
	result := succeeded
	if perr != nil {
		result = failed
	}
	c, until := d.lanes.done(key, start, now, result)
	d.circuit(w, c, until)
	if perr == nil {
		_ = msg.Ack()
		d.metrics.deliveries.WithLabelValues(resultDelivered).Inc()
		d.metrics.latency.Observe(now.Sub(dl.Event.Time).Seconds())
		d.note(w, func(s *State) {
			s.Delivered++
			s.set(Verified, now)
			s.record(a)
		})
		return
	}
	a.Error = perr.Error()
	delay := d.retryDelay(age)
	if age+delay > d.cfg.RetryFor {
		d.giveUp(msg, w, dl, attempt, &a, now)
		return
	}
	_ = msg.NakWithDelay(delay)
	d.metrics.deliveries.WithLabelValues(resultFailed).Inc()
	d.metrics.retries.Inc()
	d.note(w, func(s *State) {
		s.Failed++
		s.record(a)
	})
}

// giveUp ends a delivery whose retries have run out: after its last
// failed attempt a, or, with a nil, while its webhook is parked.
func (d *Dispatcher) giveUp(msg jetstream.Msg, w model.Webhook, dl delivery, attempt uint64, a *Attempt, now time.Time) {
	_ = msg.Term()
	d.metrics.deliveries.WithLabelValues(resultGaveUp).Inc()
	why := "parked"
	if a != nil {
		why = a.Error
	}
	d.cfg.Log.Warn("webhook delivery given up", "webhook", w.Name, "id", dl.Event.Key, "attempts", attempt, "err", why)
	d.note(w, func(s *State) {
		s.GaveUp++
		s.set(Failing, now)
		if a != nil {
			s.Failed++
			s.record(*a)
		}
	})
}

// circuit reports a change of a webhook's circuit on this replica: in its
// state, its metric and the log.
func (d *Dispatcher) circuit(w model.Webhook, c change, until time.Time) {
	switch c {
	case opened:
		d.metrics.circuitOpen.WithLabelValues(w.Name).Set(1)
		d.cfg.Log.Warn("webhook parked: its receiver failed too often", "webhook", w.Name, "until", until.UTC().Format(time.RFC3339))
		d.note(w, func(s *State) {
			s.Circuit, s.ParkedUntil = CircuitOpen, until.UTC()
		})
	case closed:
		d.metrics.circuitOpen.WithLabelValues(w.Name).Set(0)
		d.cfg.Log.Info("webhook no longer parked: its receiver answered", "webhook", w.Name)
		d.note(w, func(s *State) {
			s.Circuit, s.ParkedUntil = "", time.Time{}
		})
	}
}

// note records what happened in the registration's state. Notes are
// written together, per webhook, every noteEvery (noteLoop): a busy
// webhook costs a few writes a second, not one per delivery, and the
// replicas' compare-and-set writes of one key seldom meet.
func (d *Dispatcher) note(w model.Webhook, change func(*State)) {
	d.notesMu.Lock()
	defer d.notesMu.Unlock()
	key := regKey(w.Name, w.Created)
	n := d.notes[key]
	if n == nil {
		n = &pendingNotes{webhook: w}
		d.notes[key] = n
	}
	n.changes = append(n.changes, change)
}

// pendingNotes are the changes to one registration's state not written
// yet.
type pendingNotes struct {
	webhook model.Webhook
	changes []func(*State)
}

// noteEvery is how often noted changes are written.
const noteEvery = 100 * time.Millisecond

// noteLoop writes the noted changes until ctx ends, and once more then:
// the state is a report, so a failure to write it is logged, not retried.
func (d *Dispatcher) noteLoop(ctx context.Context) {
	t := time.NewTicker(noteEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			d.writeNotes(wctx)
			cancel()
			return
		case <-t.C:
			d.writeNotes(ctx)
		}
	}
}

func (d *Dispatcher) writeNotes(ctx context.Context) {
	d.notesMu.Lock()
	notes := d.notes
	d.notes = map[string]*pendingNotes{}
	d.notesMu.Unlock()
	for _, n := range notes {
		// A removed registration's state is being deleted (sweep).
		if _, reg := d.find(n.webhook.Name, n.webhook.Created); reg == gone {
			continue
		}
		_, err := d.states.update(ctx, n.webhook.Name, n.webhook.Created, d.cfg.Now(), func(s *State) error {
			for _, change := range n.changes {
				change(s)
			}
			return nil
		})
		if err != nil {
			d.cfg.Log.Warn("webhook state", "webhook", n.webhook.Name, "err", err.Error())
		}
	}
}

// post sends one signed delivery; any 2xx within the timeout is success.
func (d *Dispatcher) post(ctx context.Context, w model.Webhook, ev envelope) (int, error) {
	ts := d.cfg.Now().Unix()
	sig, err := Sign(w.Secret, ev.Key, ts, ev.Body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, strings.NewReader(string(ev.Body)))
	if err != nil {
		return 0, fmt.Errorf("delivery request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("webhook-id", ev.Key)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("POST: %w", withoutURL(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("POST: answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// scanLoop looks for registrations the replicas have not seen yet and asks
// for their verification: the message id makes the replicas' requests one.
// It also deletes the states of removed registrations (sweep).
func (d *Dispatcher) scanLoop(ctx context.Context) {
	seen := map[string]bool{}
	swept := map[string]time.Time{}
	t := time.NewTicker(d.cfg.Scan)
	defer t.Stop()
	for {
		for _, w := range d.cfg.Hooks().Webhooks() {
			key := regKey(w.Name, w.Created)
			if w.Removed {
				d.sweep(ctx, w, key, swept)
				continue
			}
			if seen[key] {
				continue
			}
			if err := d.requestVerification(ctx, w); err != nil {
				if ctx.Err() == nil {
					d.cfg.Log.Warn("webhook verification request", "webhook", w.Name, "err", err.Error())
				}
				continue
			}
			seen[key] = true
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes a removed registration's state when the replica first
// sees the removal, and once more when whatever was in hand then has ended
// (an attempt within AckWait, its note within noteEvery more), since such
// an attempt may write the state again. swept holds when the first delete
// was made, and the zero time once the second was.
func (d *Dispatcher) sweep(ctx context.Context, w model.Webhook, key string, swept map[string]time.Time) {
	first, ok := swept[key]
	now := d.cfg.Now()
	if ok && (first.IsZero() || now.Sub(first) < d.cfg.AckWait+noteEvery) {
		return
	}
	d.lanes.forget(key)
	d.metrics.circuitOpen.DeleteLabelValues(w.Name)
	if err := d.states.remove(ctx, w.Name, w.Created); err != nil {
		if ctx.Err() == nil {
			d.cfg.Log.Warn("webhook state of a removed webhook", "webhook", w.Name, "err", err.Error())
		}
		return
	}
	d.metrics.swept.Inc()
	if ok {
		now = time.Time{}
	}
	swept[key] = now
}

func (d *Dispatcher) requestVerification(ctx context.Context, w model.Webhook) error {
	if _, found, err := d.states.Get(ctx, w.Name, w.Created); err != nil || found {
		return err
	}
	data, err := json.Marshal(verification{Webhook: w.Name, Created: w.Created})
	if err != nil {
		return err
	}
	m := nats.NewMsg(subjectVerify + w.Name)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, "verify."+regKey(w.Name, w.Created))
	if _, err := d.js.PublishMsg(ctx, m); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	// The state says the replicas have seen the registration, so that
	// none asks again once the duplicate window has passed.
	_, err = d.states.update(ctx, w.Name, w.Created, d.cfg.Now(), func(*State) error { return nil })
	return err
}
