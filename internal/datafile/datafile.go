// Package datafile reads the files editors give ingest (import files,
// squads, competitions and table rules) as text: bounded in size, UTF-8 or
// decoded from the encoding the editor names, a leading byte-order mark
// skipped. What is not such text is refused, never passed on with
// replacement characters. Errors are model.Invalid errors that name the
// line and the limit or encoding, not the file: the caller names it.
package datafile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/model"
)

// DefaultMaxSize bounds a file when no limit is given: four times the
// largest real input (engsoccerdata's england.csv, 15.4 MB: every English
// league match since 1888), yet small enough that the files an import
// holds at once (it parses four ahead) stay within a few hundred MiB.
const DefaultMaxSize = 64 << 20

// Options say how to read a file. The zero value reads UTF-8 up to
// DefaultMaxSize.
type Options struct {
	Encoding Encoding
	MaxSize  Size
}

// Open opens the file at path to be read as o says. A regular file larger
// than the limit is refused before anything of it is read; anything else
// (a pipe, a device) once more than the limit has been read.
func (o Options) Open(path string) (io.ReadCloser, error) {
	f, _, err := o.open(path)
	if err != nil {
		return nil, err
	}
	return &file{Reader: o.Reader(f), f: f}, nil
}

// open opens path and returns its size, -1 for what is not a regular file.
func (o Options) open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, cannotRead(err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = cannotRead(err)
	case fi.IsDir():
		err = invalid("is a directory, not a file")
	case fi.Mode().IsRegular() && fi.Size() > o.MaxSize.bytes():
		err = invalid("is %d bytes, more than the limit of %s (--max-file-size)", fi.Size(), o.MaxSize)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return f, -1, nil
	}
	return f, fi.Size(), nil
}

type file struct {
	io.Reader
	f *os.File
}

func (f *file) Close() error { return f.f.Close() }

// ReadFile reads the whole file at path as o says. A regular file is read
// into one buffer of its size and its text checked in place (UTF-8), as
// os.ReadFile reads it: an import reads every file whole.
func (o Options) ReadFile(path string) ([]byte, error) {
	f, size, err := o.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.readAll(f, size)
}

// ReadAll reads the whole of r (standard input) as o says.
func (o Options) ReadAll(r io.Reader) ([]byte, error) { return o.readAll(r, -1) }

// Text returns the text of b, bytes already in memory (a fetched body),
// as o says: UTF-8 is checked in place, not copied, so that a body costs
// its own size once.
func (o Options) Text(b []byte) ([]byte, error) {
	if int64(len(b)) > o.MaxSize.bytes() {
		return nil, invalid("is more than the limit of %s (--max-file-size)", o.MaxSize)
	}
	text, _, err := o.text().next(b, true)
	return text, err
}

func (o Options) readAll(r io.Reader, size int64) ([]byte, error) {
	raw, err := readAll(r, size, o.MaxSize)
	if err != nil {
		return nil, err
	}
	text, _, err := o.text().next(raw, true)
	return text, err
}

// readAll reads src, size bytes long when known (-1 when not), up to one
// byte more than the limit, which tells a file over it (one that grew
// since its size was read, or a device). What has no known size is read
// in blocks joined once it is whole: endless bytes then cost the limit,
// not the several times it that a growing buffer held.
func readAll(src io.Reader, size int64, limit Size) ([]byte, error) {
	max := limit.bytes()
	if max < math.MaxInt64 {
		src = io.LimitReader(src, max+1)
	}
	block := min(size, max) + 1
	if size < 0 {
		block = 1 << 20
	}
	var blocks [][]byte
	total := int64(0)
	for {
		b := make([]byte, block)
		n, err := io.ReadFull(src, b)
		blocks = append(blocks, b[:n])
		total += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, cannotRead(err)
		}
	}
	if total > max {
		return nil, invalid("is more than the limit of %s (--max-file-size)", limit)
	}
	if len(blocks) == 1 {
		return blocks[0], nil
	}
	return bytes.Join(blocks, nil), nil
}

// Reader reads r as o says: the text of r as UTF-8, and an error once r
// holds more than the limit or what is not text of the encoding.
func (o Options) Reader(r io.Reader) io.Reader {
	return &reader{src: r, left: o.MaxSize.bytes(), limit: o.MaxSize, text: o.text()}
}

func (o Options) text() *text {
	return &text{enc: o.Encoding, high: highs[o.Encoding], line: 1}
}

// bom is the UTF-8 byte-order mark, which spreadsheet programs write at
// the start of a file (football-data.co.uk's have it).
var bom = []byte{0xEF, 0xBB, 0xBF}

// TrimBOM returns b without a leading byte-order mark, for a caller that
// reads the first line of a file alone.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

// text turns a file's bytes, given in order, into its text.
type text struct {
	enc Encoding
	// high maps the bytes 0x80 to 0xFF of a single-byte encoding to
	// their characters, 0 for none; nil reads UTF-8.
	high    *[128]rune
	started bool // the start was checked for a byte-order mark
	line    int  // line of the first byte not yet read
	out     []byte
}

// next returns the text of raw, the next bytes of the file (its last when
// last), and cut, the start of a character raw cuts off at its end, to be
// given again in front of the bytes that follow. UTF-8 text is raw itself;
// decoded text is t's until the next call.
func (t *text) next(raw []byte, last bool) (text, cut []byte, err error) {
	if !t.started {
		// Three bytes tell a byte-order mark, which says the file is
		// UTF-8 whatever the editor said (as browsers read it).
		if len(raw) < len(bom) && !last {
			return nil, raw, nil
		}
		t.started = true
		if bytes.HasPrefix(raw, bom) {
			raw, t.high = raw[len(bom):], nil
		}
	}
	if t.high == nil {
		return t.checkUTF8(raw, last)
	}
	text, err = t.decode(raw)
	return text, nil, err
}

// checkUTF8 returns raw once it is UTF-8, but for a character cut at its
// end while more follows.
func (t *text) checkUTF8(raw []byte, last bool) (text, cut []byte, err error) {
	end := len(raw)
	if !last {
		end = whole(raw)
	}
	text = raw[:end]
	if !utf8.Valid(text) {
		i := firstInvalid(text)
		return nil, nil, invalid("line %d: byte 0x%02X is not UTF-8: name the file's encoding with --encoding latin1 or windows-1252",
			t.line+bytes.Count(text[:i], newline), text[i])
	}
	if !last {
		t.line += bytes.Count(text, newline)
	}
	return text, raw[end:], nil
}

// decode returns raw decoded from a single-byte encoding.
func (t *text) decode(raw []byte) ([]byte, error) {
	t.out = t.out[:0]
	for i, c := range raw {
		if c < utf8.RuneSelf {
			t.out = append(t.out, c)
			continue
		}
		r := t.high[c-0x80]
		if r == 0 {
			return nil, invalid("line %d: byte 0x%02X is no character of %s", t.line+bytes.Count(raw[:i], newline), c, t.enc)
		}
		t.out = utf8.AppendRune(t.out, r)
	}
	t.line += bytes.Count(raw, newline)
	return t.out, nil
}

var newline = []byte{'\n'}

// reader is a file's text on its way to a parser, read a buffer at a time
// from src and handed out from ready, which points into buf or the text's
// own buffer.
type reader struct {
	src   io.Reader
	left  int64 // bytes src may still give before it is too large
	limit Size
	text  *text
	buf   []byte
	// cut is the start of a character the last read cut off, at the end
	// of buf, kept for the next.
	cut   []byte
	ready []byte
	err   error
}

func (d *reader) Read(p []byte) (int, error) {
	for len(d.ready) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		d.fill()
	}
	n := copy(p, d.ready)
	d.ready = d.ready[n:]
	return n, nil
}

// fill reads the next buffer of src into ready, or sets err.
func (d *reader) fill() {
	if d.buf == nil {
		d.buf = make([]byte, 32<<10)
	}
	k := copy(d.buf, d.cut)
	room := d.buf[k:]
	if d.left < int64(len(room)) {
		room = room[:d.left+1] // one byte more tells a file over the limit
	}
	n, err := d.src.Read(room)
	d.left -= int64(n)
	switch {
	case d.left < 0:
		d.err = invalid("is more than the limit of %s (--max-file-size)", d.limit)
		return
	case err != nil && !errors.Is(err, io.EOF):
		d.err = cannotRead(err)
		return
	}
	var terr error
	d.ready, d.cut, terr = d.text.next(d.buf[:k+n], err != nil)
	d.err = cmp.Or(terr, err)
}

// whole returns the length of b up to a character cut at its end.
func whole(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// firstInvalid returns the position of the first byte of b that is not
// part of a UTF-8 character.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func invalid(format string, args ...any) error {
	return &model.Error{Code: model.Invalid, Message: fmt.Sprintf(format, args...)}
}

// cannotRead is the error of a file that cannot be read, without the path
// an *fs.PathError repeats.
func cannotRead(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return invalid("cannot be read: %v", err)
}

// Encoding is a character encoding of files. The zero value is UTF-8.
type Encoding string

// The encodings read.
const (
	UTF8   Encoding = "utf-8"
	Latin1 Encoding = "latin1" // ISO 8859-1
	// Windows1252 is Latin-1 with printable characters where Latin-1
	// has the C1 controls, 0x80 to 0x9F: what Windows programs write as
	// "ANSI", and what football-data.co.uk used.
	Windows1252 Encoding = "windows-1252"
)

// Set sets e from its name or one of its aliases, for a flag.
func (e *Encoding) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "utf-8", "utf8":
		*e = UTF8
	case "latin1", "latin-1", "iso-8859-1", "iso8859-1":
		*e = Latin1
	case "windows-1252", "cp1252":
		*e = Windows1252
	default:
		return errors.New("want utf-8, latin1 or windows-1252")
	}
	return nil
}

func (e Encoding) String() string {
	if e == "" {
		return string(UTF8)
	}
	return string(e)
}

// highs are the characters of the bytes 0x80 to 0xFF of each single-byte
// encoding.
var highs = map[Encoding]*[128]rune{Latin1: latin1High(), Windows1252: windows1252High()}

// latin1High: each byte of Latin-1 is the character of its number.
func latin1High() *[128]rune {
	var h [128]rune
	for i := range h {
		h[i] = rune(0x80 + i)
	}
	return &h
}

// windows1252High is Latin-1 with the characters of 0x80 to 0x9F from
// unicode.org's CP1252.TXT; its five unassigned bytes (0x81, 0x8D, 0x8F,
// 0x90, 0x9D) are no character.
func windows1252High() *[128]rune {
	h := latin1High()
	copy(h[:32], []rune{
		0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
		0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
	})
	return h
}

// Size is a number of bytes, for a flag: 1048576, 1024KiB, 64MiB or 1GiB
// (K, M and G are the same units). Zero is DefaultMaxSize.
type Size int64

var sizeRE = regexp.MustCompile(`^(\d+)\s*(?i:(b?)|(k|kib)|(m|mib)|(g|gib))$`)

// Set parses v, for a flag.
func (s *Size) Set(v string) error {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return errors.New("want a size such as 64MiB, 512KiB or 1GiB")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	shift := 0
	switch {
	case m[3] != "":
		shift = 10
	case m[4] != "":
		shift = 20
	case m[5] != "":
		shift = 30
	}
	if err != nil || n < 1 || n > math.MaxInt64>>shift {
		return errors.New("want a size of at least 1 byte that fits 63 bits")
	}
	*s = Size(n << shift)
	return nil
}

// String is the size in the largest unit that holds it whole.
func (s Size) String() string {
	n := s.bytes()
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

func (s Size) bytes() int64 {
	if s <= 0 {
		return DefaultMaxSize
	}
	return int64(s)
}
