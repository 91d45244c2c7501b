package httpapi

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
)

// TestOpenAPIMatchesRoutes checks the OpenAPI document against the routes
// that exist, both ways: every documented path is served and every served
// v1 and v4 path is documented.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hub, err := push.NewHub(push.HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Model: m, Hub: hub})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	served := map[string]bool{}
	for _, r := range s.App().GetRoutes(true) {
		if r.Method != "GET" || !(strings.HasPrefix(r.Path, "/v1/") || strings.HasPrefix(r.Path, "/v4/")) {
			continue
		}
		served[strings.ReplaceAll(r.Path, ":id", "{id}")] = true
	}
	var missing, undocumented []string
	for p := range doc.Paths {
		if !served[p] {
			missing = append(missing, p)
		}
	}
	for p := range served {
		if _, ok := doc.Paths[p]; !ok {
			undocumented = append(undocumented, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(undocumented)
	if len(missing) > 0 || len(undocumented) > 0 {
		t.Errorf("documented but not served: %v\nserved but not documented: %v", missing, undocumented)
	}
	if len(served) < 12 {
		t.Errorf("only %d v1 and v4 routes found", len(served))
	}
}
