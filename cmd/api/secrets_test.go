package main

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestConfigLogMasksNATSPassword: the configuration logged at start holds
// the NATS URL without the password the URL carries (deploy/nats users).
func TestConfigLogMasksNATSPassword(t *testing.T) {
	cfg, err := parseConfig([]string{"--nats", "nats://api:s3cret@fd-nats-1:4222,nats://api:s3cret@fd-nats-2:4222"},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	cfg.log(slog.New(slog.NewJSONHandler(&buf, nil)))
	if strings.Contains(buf.String(), "s3cret") || !strings.Contains(buf.String(), "nats://api:xxxxx@fd-nats-1:4222") {
		t.Errorf("configuration log: %s", buf.String())
	}
}
