package events

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	neturl "net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Dial says how a process of the service reaches NATS.
type Dial struct {
	// URL is one or more NATS server URLs, separated by commas; a user's
	// password goes in them (nats://api:PASSWORD@host:4222).
	URL string
	// Name is the client's (cmd/api connects as "api", cmd/ingest as
	// "ingest"): replies to its requests come back on InboxPrefix(Name),
	// so that a NATS user allowed to subscribe to its own replies only
	// (deploy/nats/auth.conf) cannot read another client's.
	Name string
	// CA is a PEM file of the certificate authorities trusted for NATS,
	// and for NATS only (empty: the system's roots). Webhook deliveries
	// keep the system's roots.
	CA string
	// Cert and Key are a PEM client certificate and its key, for servers
	// that verify clients' certificates.
	Cert, Key string
	// Log receives the connection's asynchronous errors (a permission
	// refused, a slow consumer), disconnections and reconnections as JSON
	// lines like every other line of the process (nil: discarded; the
	// NATS client's default would print plain text on stderr).
	Log *slog.Logger
}

// connectTimeout bounds one server's connection, TLS handshake and
// authentication.
const connectTimeout = 10 * time.Second

// Conn connects. The connection retries for ever on its own after a server
// restart; Close closes it.
func (d Dial) Conn() (*nats.Conn, error) {
	inbox, err := InboxPrefix(d.Name)
	if err != nil {
		return nil, err
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// connectTimeout: a TLS handshake and a bcrypt-checked password on a
	// busy server can take longer than nats.go's default of 2 s (seen: the
	// runbook's `ingest show` timing out against a three-node TLS cluster
	// on two loaded cores), and an editor's command that fails on a slow
	// handshake has done nothing for nobody.
	opts := []nats.Option{nats.Name(d.Name), nats.CustomInboxPrefix(inbox), nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond),
		nats.Timeout(connectTimeout),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			attrs := []any{"err", err.Error()}
			if sub != nil {
				attrs = append(attrs, "subject", sub.Subject)
			}
			log.Warn("nats", attrs...)
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "err", err.Error())
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "url", Redacted(nc.ConnectedUrlRedacted())) }),
	}
	if d.CA != "" || d.Cert != "" || d.Key != "" {
		tc, err := d.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Secure(tc))
	}
	nc, err := nats.Connect(d.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", Redacted(d.URL), err)
	}
	return nc, nil
}

// tlsConfig is the TLS configuration of the connection: the CA's
// certificates as the only roots, the client certificate if given.
func (d Dial) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if d.CA != "" {
		pem, err := os.ReadFile(d.CA)
		if err != nil {
			return nil, fmt.Errorf("nats CA: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("nats CA %s: no PEM certificate in it", d.CA)
		}
	}
	if (d.Cert == "") != (d.Key == "") {
		return nil, fmt.Errorf("nats client certificate %q and key %q: give both or neither", d.Cert, d.Key)
	}
	if d.Cert != "" {
		cert, err := tls.LoadX509KeyPair(d.Cert, d.Key)
		if err != nil {
			return nil, fmt.Errorf("nats client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// User is the NATS user the first of urls names ("" if none).
func User(urls string) string {
	u, err := neturl.Parse(strings.TrimSpace(strings.Split(urls, ",")[0]))
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.Username()
}

// PermissionError is a request the server dropped because the connection's
// user may not publish to its subject. NATS does not answer such a
// request: the caller sees a time-out, and the reason only reaches the
// connection's error handler.
type PermissionError struct {
	User, Subject string
	Err           error
}

func (e *PermissionError) Error() string {
	user := e.User
	if user == "" {
		user = "(no user)"
	}
	return fmt.Sprintf("NATS user %s may not publish to %q (%v): the cluster's deploy/nats/auth.conf does not grant it; "+
		"install this release's auth.conf on every node and reload them (nats-server --signal reload)", user, e.Subject, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

var violationSubject = regexp.MustCompile(`(?i)publish to "([^"]+)"`)

// Explain turns err, the failure of a request on nc, into a
// PermissionError when the server refused the request's subject: a
// time-out that follows a permission violation on the connection.
func Explain(nc *nats.Conn, err error) error {
	if err == nil || !(errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	last := nc.LastError()
	if !errors.Is(last, nats.ErrPermissionViolation) {
		return err
	}
	m := violationSubject.FindStringSubmatch(last.Error())
	if m == nil {
		return err
	}
	return &PermissionError{User: User(strings.Join(nc.Opts.Servers, ",")), Subject: m[1], Err: last}
}

// operatorProbe is a request only an operator may send: no role of
// deploy/nats/auth.conf may list the account's streams, the admin may.
// Listing them changes nothing.
const operatorProbe = "$JS.API.STREAM.NAMES"

// CheckOperator tells at once whether nc's user may run the operators'
// commands (create, upgrade, back up and restore the streams): a
// *PermissionError when the server refuses it. A refused request is
// never answered, so without this the first step of such a command would
// wait its whole time-out and report the steps it found in place as done.
// The server reports the refusal before it answers the ping that ends the
// flush, so LastError holds it by then.
func CheckOperator(ctx context.Context, nc *nats.Conn) error {
	// The answer goes to an inbox nobody reads: only a refusal matters.
	if err := nc.PublishRequest(operatorProbe, nc.NewRespInbox(), nil); err != nil {
		return fmt.Errorf("probe %s: %w", operatorProbe, err)
	}
	// A flush needs a deadline; one round trip fits well within it.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("probe %s: %w", operatorProbe, err)
	}
	last := nc.LastError()
	if !errors.Is(last, nats.ErrPermissionViolation) {
		return nil
	}
	if m := violationSubject.FindStringSubmatch(last.Error()); m == nil || m[1] != operatorProbe {
		return nil
	}
	return &PermissionError{User: User(strings.Join(nc.Opts.Servers, ",")), Subject: operatorProbe, Err: last}
}
