package events

import "testing"

func TestRedacted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://api:s3cret@a:4222,nats://api:s3cret@b:4222", "nats://api:xxxxx@a:4222,nats://api:xxxxx@b:4222"},
		{"nats://user@a:4222", "nats://user@a:4222"},
		{"nats://api:s3cret@a:4222, nats://%zz", "nats://api:xxxxx@a:4222,(invalid URL)"},
	} {
		if got := Redacted(tc.in); got != tc.want {
			t.Errorf("Redacted(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInboxPrefix(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"api", "_INBOX_api"},
		{"ingest", "_INBOX_ingest"},
		{"TestX/sub_case", "_INBOX_TestX/sub_case"},
		{"", ""},
		{"a.b", ""},
		{"a*", ""},
		{"a>", ""},
		{"a b", ""},
	} {
		got, err := InboxPrefix(tc.name)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("InboxPrefix(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
