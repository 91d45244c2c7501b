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
