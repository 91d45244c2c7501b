package readmodel

import (
	"strings"
	"testing"

	"github.com/footdata/footballd/pkg/events"
)

// TestCheckIDs holds checkIDs, which formats ids on the stack, to the
// subject's exact text: a key token must be the id as strconv writes it.
func TestCheckIDs(t *testing.T) {
	for _, c := range []struct {
		name   string
		key    []string
		ids    []int
		others []int
		want   string // "" for accepted, else part of the error
	}{
		{"match", []string{"12", "345678"}, []int{12, 345678}, []int{9, 10}, ""},
		{"negative", []string{"-5"}, []int{-5}, nil, ""},
		{"other id", []string{"12", "345679"}, []int{12, 345678}, nil, "does not hold entity 345678"},
		{"leading zero", []string{"012"}, []int{12}, nil, "does not hold entity 12"},
		{"key out of range", []string{"2147483648"}, []int{2147483648}, nil, "id 2147483648 out of range"},
		{"other out of range", []string{"1"}, []int{1}, []int{3, -2147483649}, "id -2147483649 out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkIDs(events.Event{Key: c.key, Subject: "football.x"}, c.ids, c.others...)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}
