package datafile

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/model"
)

// TestReader reads each input four ways, wanting the same text or error
// from each: through Reader in reads as large as the input and a byte at
// a time, from a file with ReadFile, and with ReadAll.
func TestReader(t *testing.T) {
	long := strings.Repeat("Café FC,Nürnberg,北京国安\n", 4000) // characters cut at every buffer's end
	tests := []struct {
		name string
		opts Options
		in   string
		want string // the text, or a regular expression of the error
		err  bool
	}{
		{"UTF-8", Options{}, "Café FC\n", "Café FC\n", false},
		{"empty", Options{}, "", "", false},
		{"byte-order mark skipped", Options{}, "\xEF\xBB\xBF{\"name\":1}", "{\"name\":1}", false},
		{"a byte-order mark alone", Options{}, "\xEF\xBB\xBF", "", false},
		{"a byte-order mark later is text", Options{}, "a\xEF\xBB\xBF", "a\uFEFF", false},
		{"long, in many buffers", Options{}, long, long, false},
		{"Latin-1 as UTF-8", Options{}, "x\ny\n\"Caf\xE9 FC\"\n", `^line 3: byte 0xE9 is not UTF-8: name the file's encoding with --encoding latin1 or windows-1252$`, true},
		{"a character cut at the end", Options{}, "ab\xC3", `^line 1: byte 0xC3 is not UTF-8`, true},
		{"an encoded surrogate", Options{}, "\xED\xA0\x80", `^line 1: byte 0xED is not UTF-8`, true},
		{"not UTF-8 beyond the first buffer", Options{}, long + "\xFF", `^line 4001: byte 0xFF is not UTF-8`, true},
		{"Latin-1", Options{Encoding: Latin1}, "Caf\xE9 FC, N\xFCrnberg", "Café FC, Nürnberg", false},
		{"Latin-1 C1 controls are their characters", Options{Encoding: Latin1}, "\x92", "\u0092", false},
		{"windows-1252", Options{Encoding: Windows1252}, "Nott\x92m Forest \x80 \x8E \x9F \xE9", "Nott’m Forest € Ž Ÿ é", false},
		{"windows-1252 unassigned byte", Options{Encoding: Windows1252}, "a\nb\x81", `^line 2: byte 0x81 is no character of windows-1252$`, true},
		{"a byte-order mark says UTF-8", Options{Encoding: Latin1}, "\xEF\xBB\xBFCafé", "Café", false},
		{"at the limit", Options{MaxSize: 10}, "0123456789", "0123456789", false},
		{"over the limit", Options{MaxSize: 10}, "0123456789x", `^is (11 bytes, )?more than the limit of 10B \(--max-file-size\)$`, true},
		{"the mark counts", Options{MaxSize: 10}, "\xEF\xBB\xBF012345678", `more than the limit`, true},
		{"the largest limit", Options{MaxSize: math.MaxInt64}, "abc", "abc", false},
	}
	path := filepath.Join(t.TempDir(), "in")
	for _, tt := range tests {
		if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, way := range []string{"one read", "a byte at a time", "ReadFile", "ReadAll"} {
			var got []byte
			var err error
			switch way {
			case "one read":
				got, err = io.ReadAll(tt.opts.Reader(strings.NewReader(tt.in)))
			case "a byte at a time":
				got, err = io.ReadAll(tt.opts.Reader(iotest.OneByteReader(strings.NewReader(tt.in))))
			case "ReadFile":
				got, err = tt.opts.ReadFile(path)
			default:
				got, err = tt.opts.ReadAll(iotest.HalfReader(strings.NewReader(tt.in)))
			}
			switch {
			case tt.err && err == nil:
				t.Errorf("%s (%s): read %q, want an error matching %q", tt.name, way, got, tt.want)
			case tt.err && (model.ErrorCode(err) != model.Invalid || !regexp.MustCompile(tt.want).MatchString(err.Error())):
				t.Errorf("%s (%s): error %v, want an invalid error matching %q", tt.name, way, err, tt.want)
			case !tt.err && err != nil:
				t.Errorf("%s (%s): %v", tt.name, way, err)
			case !tt.err && string(got) != tt.want:
				t.Errorf("%s (%s): read %.80q, want %.80q", tt.name, way, got, tt.want)
			}
		}
	}
}

// TestOpenRefusesLargeFiles: a regular file over the limit is refused
// from its size alone (a sparse file of 1 GiB here, read in no time); a
// device of endless bytes once the limit is passed.
func TestOpenRefusesLargeFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	small := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(small, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		opts Options
		want string
	}{
		{big, Options{}, `^is 1073741824 bytes, more than the limit of 64MiB \(--max-file-size\)$`},
		{"/dev/zero", Options{MaxSize: 1 << 20}, `^is more than the limit of 1MiB \(--max-file-size\)$`},
		{dir, Options{}, `^is a directory, not a file$`},
		{filepath.Join(dir, "missing.csv"), Options{}, `^cannot be read: no such file or directory$`},
		{small, Options{MaxSize: 3}, `^is 4 bytes, more than the limit of 3B`},
		{small, Options{MaxSize: 4}, ``},
	}
	for _, tt := range tests {
		_, err := tt.opts.ReadFile(tt.path)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.path, err)
		case tt.want != "" && (model.ErrorCode(err) != model.Invalid || !regexp.MustCompile(tt.want).MatchString(err.Error())):
			t.Errorf("%s: error %v, want an invalid error matching %q", tt.path, err, tt.want)
		}
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		in, want string // want "" for refused
	}{
		{"1048576", "1MiB"}, {"64MiB", "64MiB"}, {"64 mib", "64MiB"}, {"64M", "64MiB"}, {"512KiB", "512KiB"},
		{"2g", "2GiB"}, {"1000", "1000B"}, {"1000b", "1000B"}, {"1536KiB", "1536KiB"},
		{"0", ""}, {"-1", ""}, {"1.5GiB", ""}, {"64MB", ""}, {"lots", ""}, {"9999999999999GiB", ""}, {"", ""},
	}
	for _, tt := range tests {
		var s Size
		err := s.Set(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%q: taken as %s, want it refused", tt.in, s)
		case tt.want != "" && (err != nil || s.String() != tt.want):
			t.Errorf("%q: %s (%v), want %s", tt.in, s, err, tt.want)
		}
	}
	if got := Size(0).String(); got != "64MiB" {
		t.Errorf("zero size is %s, want the default 64MiB", got)
	}
}

func TestEncodingNames(t *testing.T) {
	for in, want := range map[string]Encoding{"UTF-8": UTF8, "utf8": UTF8, "Latin1": Latin1, "ISO-8859-1": Latin1,
		"latin-1": Latin1, "windows-1252": Windows1252, "CP1252": Windows1252, "ebcdic": "", "utf-16": ""} {
		var e Encoding
		err := e.Set(in)
		if (want == "") != (err != nil) || (err == nil && e != want) {
			t.Errorf("%q: %q (%v), want %q", in, e, err, want)
		}
	}
	if got := Encoding("").String(); got != "utf-8" {
		t.Errorf("zero encoding is %s", got)
	}
}

// FuzzReader holds the reader to what it stands for: UTF-8 input comes
// out as it went in (a leading byte-order mark dropped) and anything else
// is refused, as utf8.Valid says; Latin-1 input comes out as its bytes'
// characters; whatever the reads' sizes, and as ReadAll reads it whole.
func FuzzReader(f *testing.F) {
	f.Add([]byte("Café FC\n"), false, false)
	f.Add([]byte("\xEF\xBB\xBFa\xC3"), true, false)
	f.Add([]byte("Caf\xE9"), false, true)
	f.Fuzz(func(t *testing.T, in []byte, chunked, latin1 bool) {
		var src io.Reader = bytes.NewReader(in)
		if chunked {
			src = iotest.OneByteReader(src)
		}
		opts := Options{}
		if latin1 {
			opts.Encoding = Latin1
		}
		got, err := io.ReadAll(opts.Reader(src))
		if all, errAll := opts.ReadAll(bytes.NewReader(in)); (err == nil) != (errAll == nil) || (err == nil && !bytes.Equal(all, got)) {
			t.Fatalf("%q (latin1 %v): Reader read %q, %v; ReadAll %q, %v", in, latin1, got, err, all, errAll)
		}
		text := TrimBOM(in)
		var want []byte
		switch {
		case len(text) < len(in) || !latin1:
			if !utf8.Valid(text) {
				if err == nil {
					t.Fatalf("%q read as %q, want it refused", in, got)
				}
				return
			}
			want = text
		default:
			for _, c := range in {
				want = utf8.AppendRune(want, rune(c))
			}
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q (latin1 %v): read %q, %v; want %q", in, latin1, got, err, want)
		}
	})
}

// TestText: bytes already in memory (a fetched body) are checked as a
// file's are, UTF-8 in place without a copy.
func TestText(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		in   string
		want string
		err  string
	}{
		{"utf-8", Options{}, "Köln", "Köln", ""},
		{"a byte-order mark", Options{}, "\xEF\xBB\xBFKöln", "Köln", ""},
		{"latin1 decoded", Options{Encoding: Latin1}, "K\xF6ln", "Köln", ""},
		{"not utf-8", Options{}, "a\nK\xF6ln", "", "line 2: byte 0xF6 is not UTF-8"},
		{"over the limit", Options{MaxSize: 3}, "Köln", "", "more than the limit of 3B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			got, err := tt.o.Text(in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%q: %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("%q: %q %v, want %q", tt.in, got, err, tt.want)
			}
			if tt.o.Encoding == "" && &got[len(got)-1] != &in[len(in)-1] {
				t.Errorf("%q: copied, want the input itself", tt.in)
			}
		})
	}
}
