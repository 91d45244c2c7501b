package natstest

import (
	"os"
	"strings"
	"testing"
)

// A Block is a fenced block of a Markdown file: the language its fence
// names, where its first line starts in the file, and its text.
type Block struct {
	Lang   string
	Offset int
	Text   string
}

// Blocks returns the fenced blocks of the Markdown file at path, in order.
// The tests that run what the README and docs/ tell a reader read them
// here, so that a block is found the same way whichever test runs it, and
// the test that every shell block is run can tell which block each test
// takes.
func Blocks(tb testing.TB, path string) []Block {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	doc := string(b)
	var blocks []Block
	var open *Block
	for off := 0; off < len(doc); {
		end := len(doc)
		if i := strings.IndexByte(doc[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := strings.TrimSuffix(doc[off:end], "\n")
		switch {
		case open == nil && strings.HasPrefix(line, "```"):
			open = &Block{Lang: strings.TrimSpace(line[3:]), Offset: end}
		case open != nil && line == "```":
			open.Text = doc[open.Offset:off]
			blocks = append(blocks, *open)
			open = nil
		}
		off = end
	}
	if open != nil {
		tb.Fatalf("%s: the block fenced before byte %d is not closed", path, open.Offset)
	}
	return blocks
}

// BlockAfter returns the first block fenced as lang in the Markdown file at
// path after the first place the file says after (a heading, or words just
// before the block), and fails the test if there is none.
func BlockAfter(tb testing.TB, path, after, lang string) Block {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	at := strings.Index(string(b), after)
	if at < 0 {
		tb.Fatalf("%s does not say %q", path, after)
	}
	for _, bl := range Blocks(tb, path) {
		if bl.Lang == lang && bl.Offset > at {
			return bl
		}
	}
	tb.Fatalf("%s has no %s block after %q", path, lang, after)
	return Block{}
}
