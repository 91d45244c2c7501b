package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWebhookValidate(t *testing.T) {
	secret, err := NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	if key, err := WebhookKey(secret); err != nil || len(key) != secretBytes {
		t.Fatalf("new secret %s: key of %d bytes, %v", secret, len(key), err)
	}
	valid := func() Webhook {
		return Webhook{Name: "acme-live", Client: "acme", URL: "https://hooks.example.org/fd?x=1", Secret: secret, Created: time.Unix(1, 0)}
	}
	tests := []struct {
		change func(*Webhook)
		field  string // "" for valid
	}{
		{func(*Webhook) {}, ""},
		{func(w *Webhook) { w.URL = "http://127.0.0.1:8080/x" }, ""},
		{func(w *Webhook) { w.Events = []string{"Fixture.Update", "Competition.Update"} }, ""},
		{func(w *Webhook) { w.Competitions, w.Leagues = []int{1, 2}, []LeagueCode{"PL", "BL1"} }, ""},
		{func(w *Webhook) { w.Name = "Acme" }, "name"},
		{func(w *Webhook) { w.Client = "" }, "client"},
		{func(w *Webhook) { w.URL = "ftp://example.org/x" }, "url"},
		{func(w *Webhook) { w.URL = "example.org/x" }, "url"},
		{func(w *Webhook) { w.URL = "https:///x" }, "url"},
		{func(w *Webhook) { w.URL = "https://u:p@example.org/x" }, "url"},
		{func(w *Webhook) { w.URL = "https://example.org/x#frag" }, "url"},
		{func(w *Webhook) { w.URL = "https://example.org/" + strings.Repeat("x", maxURL) }, "url"},
		{func(w *Webhook) { w.Events = []string{"fixture.update"} }, "events"},
		{func(w *Webhook) { w.Competitions = []int{0} }, "competitions"},
		{func(w *Webhook) { w.Leagues = []LeagueCode{"pl"} }, "leagues"},
		{func(w *Webhook) { w.Secret = strings.TrimPrefix(secret, SecretPrefix) }, "secret"},
		{func(w *Webhook) { w.Secret = SecretPrefix + "c2hvcnQ=" }, "secret"},
		{func(w *Webhook) { w.Created = time.Time{} }, "created"},
	}
	for i, tt := range tests {
		w := valid()
		tt.change(&w)
		err := w.Validate()
		var e *Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%d: %+v: %v", i, w, err)
		case tt.field != "" && (!errors.As(err, &e) || e.Field != tt.field || e.Code != Invalid):
			t.Errorf("%d: %+v: %v, want invalid %s", i, w, err, tt.field)
		}
	}
}

func TestWebhookWants(t *testing.T) {
	w := Webhook{Events: []string{"Fixture.Update"}, Competitions: []int{7}, Leagues: []LeagueCode{"PL"}}
	tests := []struct {
		kind  string
		comp  int
		code  LeagueCode
		wants bool
	}{
		{"Fixture.Update", 7, "PL", true},
		{"Competition.Update", 7, "PL", false},
		{"Fixture.Update", 8, "PL", false},
		{"Fixture.Update", 7, "BL1", false},
	}
	for _, tt := range tests {
		if got := w.Wants(tt.kind, tt.comp, tt.code); got != tt.wants {
			t.Errorf("Wants(%s, %d, %s) = %v", tt.kind, tt.comp, tt.code, got)
		}
	}
	if all := (Webhook{}); !all.Wants("Competition.Update", 1, "SA") {
		t.Errorf("a webhook without filters does not want everything")
	}
}
