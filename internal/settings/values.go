package settings

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/netguard"
)

// Text is a string.
func Text(p *string, def string) Value { return textValue{p, def} }

type textValue struct {
	p   *string
	def string
}

func (v textValue) String() string     { return deref(v.p) }
func (v textValue) Default() string    { return v.def }
func (v textValue) Set(s string) error { *v.p = s; return nil }

// Bool is true or false, false by default, given alone (--dry-run) or
// with a value.
func Bool(p *bool) Value { return boolValue{p} }

type boolValue struct{ p *bool }

func (v boolValue) String() string {
	if v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p)
}
func (v boolValue) Default() string  { return "false" }
func (v boolValue) IsBoolFlag() bool { return true }

func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*v.p = b
	return nil
}

// Int is a whole number from lo to hi (hi 0: no upper bound).
func Int[T ~int | ~int64](p *T, def, lo, hi T) Value { return intValue[T]{p, def, lo, hi} }

type intValue[T ~int | ~int64] struct {
	p           *T
	def, lo, hi T
}

func (v intValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*v.p), 10)
}
func (v intValue[T]) Default() string { return strconv.FormatInt(int64(v.def), 10) }

func (v intValue[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || T(n) < v.lo || (v.hi != 0 && T(n) > v.hi) || int64(T(n)) != n {
		if v.hi == 0 {
			return fmt.Errorf("must be a whole number, at least %d", v.lo)
		}
		return fmt.Errorf("must be a whole number from %d to %d", v.lo, v.hi)
	}
	*v.p = T(n)
	return nil
}

// Float is a number more than lo and at most hi.
func Float(p *float64, def, lo, hi float64) Value { return floatValue{p, def, lo, hi} }

type floatValue struct {
	p           *float64
	def, lo, hi float64
}

func (v floatValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}
func (v floatValue) Default() string { return strconv.FormatFloat(v.def, 'g', -1, 64) }

func (v floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= v.lo || f > v.hi {
		return fmt.Errorf("must be a number more than %g and at most %g", v.lo, v.hi)
	}
	*v.p = f
	return nil
}

// Duration is a duration from lo to hi (hi 0: no upper bound); lo 1ns
// reads "more than 0".
func Duration(p *time.Duration, def, lo, hi time.Duration) Value {
	return durationValue{p, def, lo, hi}
}

type durationValue struct {
	p           *time.Duration
	def, lo, hi time.Duration
}

func (v durationValue) String() string {
	if v.p == nil {
		return ""
	}
	return Short(*v.p)
}
func (v durationValue) Default() string { return Short(v.def) }

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < v.lo || (v.hi > 0 && d > v.hi) {
		return fmt.Errorf("must be a duration %s", v.rule())
	}
	*v.p = d
	return nil
}

// rule says which durations are taken, with the default as an example.
func (v durationValue) rule() string {
	example := "such as " + Short(v.def)
	switch {
	case v.lo <= 0 && v.hi == 0:
		return example
	case v.lo == time.Nanosecond && v.hi == 0:
		return "more than 0, " + example
	case v.lo == time.Nanosecond:
		return "more than 0 and at most " + Short(v.hi) + ", " + example
	case v.hi == 0:
		return "of at least " + Short(v.lo) + ", " + example
	}
	return "from " + Short(v.lo) + " to " + Short(v.hi) + ", " + example
}

// Short writes a duration without its zero tails: 1m, not 1m0s.
func Short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Addr is host:port or :port; optional takes "" for none.
func Addr(p *string, def string, optional bool) Value { return addrValue{p, def, optional} }

type addrValue struct {
	p        *string
	def      string
	optional bool
}

func (v addrValue) String() string  { return deref(v.p) }
func (v addrValue) Default() string { return v.def }

func (v addrValue) Set(s string) error {
	if s == "" && v.optional {
		*v.p = s
		return nil
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		if v.optional {
			return errors.New("must be host:port or :port, or empty for none")
		}
		return errors.New("must be host:port or :port")
	}
	*v.p = s
	return nil
}

// Allow is where a process may connect besides public addresses
// (netguard.ParseAllow); empty for nowhere else.
func Allow(p **netguard.Allow) Value { return allowValue{p} }

type allowValue struct{ p **netguard.Allow }

func (v allowValue) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return (*v.p).String()
}

func (v allowValue) Default() string { return "" }

func (v allowValue) Set(s string) error {
	a, err := netguard.ParseAllow(s)
	if err != nil {
		return err
	}
	*v.p = a
	return nil
}

// List is comma-separated text; empty for none.
func List(p *[]string) Value { return listValue{p} }

type listValue struct{ p *[]string }

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v listValue) Default() string { return "" }

func (v listValue) Set(s string) error {
	*v.p = nil
	if s != "" {
		*v.p = strings.Split(s, ",")
	}
	return nil
}

// Level is a log level: debug, info, warn or error.
func Level(p *slog.Level, def slog.Level) Value { return levelValue{p, def} }

type levelValue struct {
	p   *slog.Level
	def slog.Level
}

func (v levelValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.ToLower(v.p.String())
}
func (v levelValue) Default() string { return strings.ToLower(v.def.String()) }

func (v levelValue) Set(s string) error {
	if err := v.p.UnmarshalText([]byte(s)); err != nil {
		return errors.New("must be debug, info, warn or error")
	}
	return nil
}

// Parsed is a value of the command's own kind, with its default as Set
// takes it.
func Parsed(v flag.Value, def string) Value { return parsedValue{v, def} }

type parsedValue struct {
	flag.Value
	def string
}

func (v parsedValue) Default() string { return v.def }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
