package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	metricName = regexp.MustCompile(`\bfd_[a-z0-9_]+`)
	typeLine   = regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`)
)

// TestDashboardsUseExportedMetrics: every fd_ series the Grafana dashboard
// and the alert rules of deploy/ name is one a running replica exports, so
// that a renamed metric cannot leave an empty panel or an alert that never
// fires. The fd_feed_ series are the feed follower's, another process:
// cmd/ingest's TestFeedCommands checks them against a running one.
func TestDashboardsUseExportedMetrics(t *testing.T) {
	r := startReplica(t, "", "--anonymous-per-day", "2")
	// Give every labelled series a value: a cache miss and a hit, and an
	// anonymous caller over its limit.
	for range 3 {
		r.do("GET", "/v1/competitions", nil)
	}
	status, body := get(t, r.admin+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d", status)
	}
	exported := map[string]string{}
	for _, m := range typeLine.FindAllStringSubmatch(body, -1) {
		exported[m[1]] = m[2]
	}
	if exported["fd_rate_limit_rejections_total"] == "" {
		t.Fatalf("the scrape lacks the 429 series the requests should have made:\n%s", body)
	}
	for _, file := range []string{"../../deploy/grafana/footballd.json", "../../deploy/prometheus/alerts.yml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names := metricName.FindAllString(string(b), -1)
		if len(names) == 0 {
			t.Errorf("%s names no fd_ metric", file)
		}
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			if exported[name] != "" || strings.HasPrefix(name, "fd_feed_") {
				continue
			}
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if exported[base] == "histogram" {
				continue
			}
			t.Errorf("%s uses %s, which the service does not export", file, name)
		}
	}
}
