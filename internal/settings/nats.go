package settings

import (
	"errors"
	"net/url"
	"strings"

	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
)

// NATS are the settings of a connection to NATS, the same in every
// command: the servers, and the CA, certificate and key of TLS (the
// fields of events.Dial). user names the command's NATS user in the
// example of a password.
func NATS(group, user string, servers, ca, cert, key *string) Table {
	return Table{
		{Group: group, Name: "nats", Env: "FD_NATS_URL", Arg: "URLS", Usage: "NATS servers, comma-separated; a user's password as nats://" + user + ":PASSWORD@host:4222 (masked in logs)", Value: Parsed(natsValue{servers}, nats.DefaultURL), Redact: events.Redacted},
		{Group: group, Name: "nats-ca", Env: "FD_NATS_CA", Arg: "FILE", Usage: "PEM file of the CA trusted for NATS, and for NATS only (default: the system's roots)", Value: Text(ca, "")},
		{Group: group, Name: "nats-cert", Env: "FD_NATS_CERT", Arg: "FILE", Usage: "PEM client certificate for NATS, with --nats-key", Value: Text(cert, "")},
		{Group: group, Name: "nats-key", Env: "FD_NATS_KEY", Arg: "FILE", Usage: "PEM key of --nats-cert", Value: Text(key, "")},
	}
}

// natsValue is one or more nats:// URLs separated by commas.
type natsValue struct{ p *string }

func (v natsValue) String() string { return deref(v.p) }

func (v natsValue) Set(s string) error {
	for _, one := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Scheme != "nats" || u.Host == "" {
			return errors.New("must be a URL such as nats://127.0.0.1:4222, or several separated by commas")
		}
	}
	*v.p = s
	return nil
}
