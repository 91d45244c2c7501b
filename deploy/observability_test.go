package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type dashboard struct {
	Title  string `json:"title"`
	UID    string `json:"uid"`
	Panels []struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Title   string `json:"title"`
		Targets []struct {
			Expr  string `json:"expr"`
			RefID string `json:"refId"`
		} `json:"targets"`
	} `json:"panels"`
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile("grafana/footballd.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana/footballd.json: %v", err)
	}
	return d
}

// TestDashboard: the dashboard loads as Grafana JSON, with unique panel
// ids and a query behind every graph. That its metrics exist is checked
// against a running replica (cmd/api, TestDashboardsUseExportedMetrics).
func TestDashboard(t *testing.T) {
	d := readDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard uid %q, title %q: both needed for provisioning", d.UID, d.Title)
	}
	ids := map[int]bool{}
	graphs := 0
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		graphs++
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			if strings.TrimSpace(q.Expr) == "" || q.RefID == "" {
				t.Errorf("panel %q: query %q without expression or refId", p.Title, q.RefID)
			}
		}
	}
	if graphs < 10 {
		t.Errorf("%d graphs, want the ten or more the README lists", graphs)
	}
}

// TestDashboardPromQL parses every query of the dashboard with promtool
// (make deploy-check passes its path in PROMTOOL), as recording rules with
// Grafana's variables filled in: a query Prometheus would refuse fails here
// instead of showing "no data".
func TestDashboardPromQL(t *testing.T) {
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		t.Skip("PROMTOOL not set: make deploy-check runs this test with it")
	}
	d := readDashboard(t)
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	vars := strings.NewReplacer("$__rate_interval", "5m", "$instance", ".*")
	n := 0
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			n++
			expr, err := json.Marshal(vars.Replace(q.Expr))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&rules, "      - record: dashboard:query%d\n        expr: %s\n", n, expr)
		}
	}
	file := filepath.Join(t.TempDir(), "dashboard_rules.yml")
	if err := os.WriteFile(file, []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules on the dashboard's %d queries: %v\n%s", n, err, out)
	}
}
