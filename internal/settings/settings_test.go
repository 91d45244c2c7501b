package settings

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type knobs struct {
	name   string
	n      int
	big    int64
	share  float64
	wait   time.Duration
	quiet  bool
	level  slog.Level
	listen string
}

func (k *knobs) table() Table {
	return Table{
		{Group: "A", Name: "name", Env: "FD_NAME", Arg: "NAME", Usage: "a name", Value: Text(&k.name, "ann")},
		{Group: "A", Name: "n", Env: "FD_N", Arg: "N", Usage: "a count", Value: Int(&k.n, 4, 1, 0)},
		{Group: "A", Name: "big", Arg: "BYTES", Usage: "a size", Value: Int(&k.big, 64<<20, 1, 1<<30)},
		{Group: "B", Name: "share", Arg: "SHARE", Usage: "a share", Value: Float(&k.share, 0.2, 0, 1)},
		{Group: "B", Name: "wait", Env: "FD_WAIT", Arg: "DURATION", Usage: "a wait", Value: Duration(&k.wait, time.Minute, time.Nanosecond, 0)},
		{Group: "B", Name: "quiet", Usage: "say less", Value: Bool(&k.quiet)},
		{Group: "B", Name: "log-level", Arg: "LEVEL", Usage: "a level", Value: Level(&k.level, slog.LevelInfo)},
		{Group: "B", Name: "listen", Arg: "ADDR", Usage: "an address", Value: Addr(&k.listen, ":80", true), Redact: strings.ToUpper},
	}
}

// TestParse: defaults, then the environment, then the flags; a refused
// value or flag is one line in the table's wording.
func TestParse(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string // the error, or the knobs after parsing
	}{
		{nil, nil, "{ann 4 67108864 0.2 1m0s false INFO :80}"},
		{[]string{"--n", "7", "--quiet", "--log-level", "warn", "--listen", ""}, map[string]string{"FD_N": "5", "FD_NAME": "bob"}, "{bob 7 67108864 0.2 1m0s true WARN }"},
		{[]string{"--n", "0"}, nil, `--n "0": must be a whole number, at least 1`},
		{[]string{"--big", "2147483648"}, nil, `--big "2147483648": must be a whole number from 1 to 1073741824`},
		{[]string{"--share", "0"}, nil, `--share "0": must be a number more than 0 and at most 1`},
		{[]string{"--wait", "0s"}, nil, `--wait "0s": must be a duration more than 0, such as 1m`},
		{[]string{"--quiet=maybe"}, nil, `--quiet "maybe": must be true or false`},
		{[]string{"--log-level", "loud"}, nil, `--log-level "loud": must be debug, info, warn or error`},
		{[]string{"--listen", "nowhere"}, nil, `--listen "NOWHERE": must be host:port or :port, or empty for none`},
		{[]string{"--nope"}, nil, `unknown flag --nope`},
		{[]string{"--name"}, nil, `flag needs an argument: --name`},
		{nil, map[string]string{"FD_WAIT": "soon"}, `--wait "soon" (from FD_WAIT): must be a duration more than 0, such as 1m`},
	}
	for _, tt := range tests {
		var k knobs
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		err := k.table().Load(fs, func(v string) string { return tt.env[v] })
		if err == nil {
			err = Parse(fs, tt.args)
		}
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("{%s %d %d %g %s %t %s %s}", k.name, k.n, k.big, k.share, k.wait, k.quiet, k.level, k.listen)
		}
		if got != tt.want {
			t.Errorf("%v %v: got %s, want %s", tt.args, tt.env, got, tt.want)
		}
	}
}

func TestHelp(t *testing.T) {
	var k knobs
	var b strings.Builder
	if err := k.table().Help(&b); err != nil {
		t.Fatal(err)
	}
	want := `
A
  --name NAME  FD_NAME  ann       a name
  --n N        FD_N     4         a count
  --big BYTES  -        67108864  a size

B
  --share SHARE      -        0.2   a share
  --wait DURATION    FD_WAIT  1m    a wait
  --quiet            -        -     say less
  --log-level LEVEL  -        info  a level
  --listen ADDR      -        :80   an address
`
	if got := b.String(); got != want {
		t.Errorf("help:\n%s\nwant:\n%s", got, want)
	}
}

func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Minute: "1m", time.Hour: "1h", 90 * time.Minute: "1h30m", 10 * time.Second: "10s", 300 * time.Millisecond: "300ms", 0: "0s"} {
		if got := Short(d); got != want {
			t.Errorf("Short(%v) = %s, want %s", d, got, want)
		}
	}
}

// TestNATS: the connection's settings take nats:// URLs only, and mask a
// password in the error.
func TestNATS(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"nats://a:4222,nats://b:4222", ""},
		{"http://api:s3cret@a:4222", `--nats "http://api:xxxxx@a:4222": must be a URL such as nats://127.0.0.1:4222, or several separated by commas`},
		{"nats://a:4222,", `--nats "nats://a:4222,": must be a URL such as nats://127.0.0.1:4222, or several separated by commas`},
	} {
		var servers, ca, cert, key string
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		NATS("", "api", &servers, &ca, &cert, &key).Register(fs)
		got := ""
		if err := Parse(fs, []string{"--nats", tt.url}); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("--nats %s: %q, want %q", tt.url, got, tt.want)
		}
	}
}
