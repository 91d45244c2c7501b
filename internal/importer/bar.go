package importer

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// bar draws a progress bar on a terminal; it is silent without one. A
// file's bar ends with its last fixture, which may be after the next
// file's writing began: the acknowledgements come in the order the
// fixtures went.
type bar struct {
	w           io.Writer
	label       string
	done, total int
	last        time.Time
}

func newBar(w io.Writer, label string, total int) *bar {
	if i := strings.LastIndex(label, "/"); i >= 0 {
		if j := strings.LastIndex(label[:i], "/"); j >= 0 {
			label = label[j+1:]
		}
	}
	return &bar{w: w, label: label, total: total}
}

func (b *bar) step() {
	b.done++
	if b.w == nil || (time.Since(b.last) < 100*time.Millisecond && b.done < b.total) {
		return
	}
	b.last = time.Now()
	const width = 30
	n := width * b.done / max(b.total, 1)
	fmt.Fprintf(b.w, "\r%-24s [%s%s] %d/%d", b.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), b.done, b.total)
	if b.done == b.total {
		fmt.Fprintln(b.w)
	}
}
