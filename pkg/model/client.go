package model

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
)

// Client is a registered API client. Only the SHA-256 of its token is
// stored; the token itself is shown once, when the client is created.
type Client struct {
	Name      string `json:"name"`
	Tier      Tier   `json:"tier"`
	PerMinute int    `json:"perMinute"`
	PerDay    int    `json:"perDay"`
	TokenHash string `json:"tokenHash"`
	Revoked   bool   `json:"revoked,omitempty"`
}

// maxPerMinute bounds a client's own limit: high enough for a partner
// (or a load test) to be limited by the replicas' capacity, not the counter.
const maxPerMinute = 1_000_000_000

// Default limits of a registered client (spec part 8).
const (
	DefaultPerMinute = 50
	DefaultPerDay    = 0 // no daily cap for registered clients
)

var (
	clientNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
)

// ValidToken reports whether s has the spec's token format, [a-z1-9]+. It
// runs on every authenticated request, so it is a loop, not a regexp.
func ValidToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '1' || c > '9') {
			return false
		}
	}
	return s != ""
}

// tokenAlphabet is the spec's token alphabet: letters and digits 1-9.
const tokenAlphabet = "abcdefghijklmnopqrstuvwxyz123456789"

// NewToken returns a random 32-character token in the spec's format.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new token: %w", err)
	}
	for i := range b {
		// 35 symbols: the modulo bias over 256 values is negligible for
		// a 32-symbol token (about 164 bits of entropy).
		b[i] = tokenAlphabet[int(b[i])%len(tokenAlphabet)]
	}
	return string(b), nil
}

// HashToken returns the stored form of a token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Validate checks a client.
func (c *Client) Validate() error {
	if !clientNameRE.MatchString(c.Name) {
		return Invalidf("name", c.Name, "must be 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit")
	}
	if c.Tier != TierRegistered && c.Tier != TierDonating {
		return Invalidf("tier", string(c.Tier), "must be registered or donating")
	}
	if c.PerMinute < 1 || c.PerMinute > maxPerMinute {
		return Invalidf("per-minute", fmt.Sprint(c.PerMinute), "must be from 1 to %d", maxPerMinute)
	}
	if c.PerDay < 0 {
		return Invalidf("per-day", fmt.Sprint(c.PerDay), "must be 0 (no daily cap) or more")
	}
	if len(c.TokenHash) != 64 {
		return Invalidf("tokenHash", c.TokenHash, "must be a hex SHA-256")
	}
	return nil
}

// ClientToken points the hash of a token at the client it was issued to.
// Clients are kept by name, so a replica that meets a token before it has
// applied its client finds the client through this (the editor writes it
// with every token it issues); the client itself stays the truth: a
// pointer whose client has since rotated its token or been revoked leads
// nowhere.
type ClientToken struct {
	TokenHash string `json:"tokenHash"`
	Client    string `json:"client"`
}

// Validate checks a pointer.
func (t *ClientToken) Validate() error {
	if !ValidTokenHash(t.TokenHash) {
		return Invalidf("tokenHash", t.TokenHash, "must be a SHA-256 in lower-case hex, as HashToken writes it")
	}
	if !clientNameRE.MatchString(t.Client) {
		return Invalidf("client", t.Client, "must be a client name")
	}
	return nil
}

// ValidTokenHash reports whether h has the form HashToken gives: 64
// lower-case hex digits, one subject token.
func ValidTokenHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
