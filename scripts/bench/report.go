package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// row is one line of the table: our figure, the baseline measured in the
// same run, their ratio and the DESIGN.md target it is judged against.
type row struct {
	Section  string  `json:"section"`
	What     string  `json:"what"`
	Ours     string  `json:"ours"`
	Baseline string  `json:"baseline"`
	Ratio    float64 `json:"ratio,omitempty"`
	// Nginx is nginx serving the same bytes as a static file, where the
	// row has it, and NginxRatio ours against it.
	Nginx      string  `json:"nginx,omitempty"`
	NginxRatio float64 `json:"nginxRatio,omitempty"`
	Target     string  `json:"target,omitempty"`
	// Status is "met", "missed" or "" for a figure without a target.
	Status string `json:"status,omitempty"`
	Note   string `json:"note,omitempty"`
	// Values holds the raw numbers behind the text, for tools.
	Values map[string]float64 `json:"values,omitempty"`
}

func metIf(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// report is the whole result file.
type report struct {
	Started  time.Time      `json:"started"`
	Elapsed  string         `json:"elapsed"`
	Mode     string         `json:"mode"`
	Machine  machine        `json:"machine"`
	Rows     []row          `json:"rows"`
	Failures []string       `json:"failures,omitempty"`
	Params   map[string]any `json:"params"`
}

type machine struct {
	CPU    string  `json:"cpu"`
	Cores  int     `json:"cores"`
	MemGiB float64 `json:"memGiB"`
	Go     string  `json:"go"`
	OS     string  `json:"os"`
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}
func rate(v float64, unit string) string { return fmt.Sprintf("%.0f %s", v, unit) }

func ratioText(r float64) string {
	if r == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", r)
}

// markdown renders the table; the same text is printed and written.
func (r *report) markdown(w io.Writer) {
	fmt.Fprintf(w, "Run %s (%s mode, %s) on %d × %s, %.0f GiB, %s, %s.\n\n", r.Started.UTC().Format(time.RFC3339),
		r.Mode, r.Elapsed, r.Machine.Cores, r.Machine.CPU, r.Machine.MemGiB, r.Machine.Go, r.Machine.OS)
	fmt.Fprintln(w, "| section | what | ours | baseline | ratio | nginx, same bytes | ours/nginx | target | status | note |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, x := range r.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", x.Section, esc(x.What), x.Ours, esc(x.Baseline),
			ratioText(x.Ratio), x.Nginx, ratioText(x.NginxRatio), esc(x.Target), x.Status, esc(x.Note))
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "\nFAILED: %s\n", f)
	}
}

// write stores the report as timestamped JSON and Markdown files and as
// latest.json and latest.md in dir.
func (r *report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var md strings.Builder
	r.markdown(&md)
	stamp := r.Started.UTC().Format("20060102T150405Z") + "-" + r.Mode
	for name, data := range map[string][]byte{
		stamp + ".json": js, stamp + ".md": []byte(md.String()),
		"latest.json": js, "latest.md": []byte(md.String()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
