package model

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhook is an endpoint of an API client that the service POSTs events
// to (the Event-API). The signing secret is kept in the stream, because
// every API replica signs with it; it is shown to the editor once, when
// the webhook is added.
type Webhook struct {
	Name   string `json:"name"`
	Client string `json:"client"`
	URL    string `json:"url"`
	// Events, Competitions and Leagues narrow what is pushed: empty means
	// every event kind, every competition, every league.
	Events       []string     `json:"events,omitempty"`
	Competitions []int        `json:"competitions,omitempty"`
	Leagues      []LeagueCode `json:"leagues,omitempty"`
	// Version is the API the events' URIs point into, one of
	// WebhookVersions; empty is v1, as before there was a choice.
	Version string    `json:"version,omitempty"`
	Secret  string    `json:"secret"`
	Created time.Time `json:"created"`
	Removed bool      `json:"removed,omitempty"`
}

// WebhookEvents are the kinds of event a webhook can ask for, with the
// historic names (pkg/push holds the events themselves).
var WebhookEvents = []string{"Fixture.Update", "Competition.Update"}

// WebhookVersions are the API versions a webhook's event URIs can name
// (pkg/push renders them).
var WebhookVersions = []string{"v1", "v4"}

// SecretPrefix starts every signing secret, as the Standard Webhooks
// specification writes them.
const SecretPrefix = "whsec_"

// secretBytes is the size of a signing key: Standard Webhooks asks for 24
// to 64 bytes.
const secretBytes = 32

// NewWebhookSecret returns a random signing secret, whsec_ and the base64
// of the key.
func NewWebhookSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new webhook secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// WebhookKey returns the HMAC key of a signing secret: the base64-decoded
// part after whsec_.
func WebhookKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, Invalidf("secret", "whsec_…", "must start with %s", SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, Invalidf("secret", "whsec_…", "must be %s and the base64 of 24 to 64 bytes", SecretPrefix)
	}
	return key, nil
}

// maxURL bounds a webhook's URL, in bytes.
const maxURL = 2048

// CheckWebhookURL refuses anything but an absolute http or https URL with
// a host and no credentials.
func CheckWebhookURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || len(s) > maxURL || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.User != nil || u.Fragment != "" {
		return Invalidf("url", s, "must be an absolute http or https URL with a host, no user and no fragment, such as https://example.org/hook")
	}
	return nil
}

// Validate checks a webhook.
func (w *Webhook) Validate() error {
	if err := w.ValidateDraft(); err != nil {
		return err
	}
	if _, err := WebhookKey(w.Secret); err != nil {
		return err
	}
	if w.Created.IsZero() {
		return Invalidf("created", "", "must be set")
	}
	return nil
}

// ValidateDraft checks what an editor gives of a new webhook, before it
// gets its secret and creation time.
func (w *Webhook) ValidateDraft() error {
	if !clientNameRE.MatchString(w.Name) {
		return Invalidf("name", w.Name, "must be 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit")
	}
	if !clientNameRE.MatchString(w.Client) {
		return Invalidf("client", w.Client, "must be the name of a client")
	}
	if err := CheckWebhookURL(w.URL); err != nil {
		return err
	}
	for _, e := range w.Events {
		if !slices.Contains(WebhookEvents, e) {
			return Invalidf("events", e, "must be %s", strings.Join(WebhookEvents, " or "))
		}
	}
	for _, id := range w.Competitions {
		if err := CheckID("competitions", id); err != nil {
			return err
		}
	}
	for _, l := range w.Leagues {
		if c, err := ParseLeagueCode(string(l)); err != nil || c != l {
			return Invalidf("leagues", string(l), "must be 2 to 4 upper-case letters or digits")
		}
	}
	if w.Version != "" && !slices.Contains(WebhookVersions, w.Version) {
		return Invalidf("version", w.Version, "must be %s", strings.Join(WebhookVersions, " or "))
	}
	return nil
}

// Wants reports whether the webhook asks for an event of kind about a
// competition of league. The caller's tier is checked apart.
func (w *Webhook) Wants(kind string, competition int, league LeagueCode) bool {
	return (len(w.Events) == 0 || slices.Contains(w.Events, kind)) &&
		(len(w.Competitions) == 0 || slices.Contains(w.Competitions, competition)) &&
		(len(w.Leagues) == 0 || slices.Contains(w.Leagues, league))
}
