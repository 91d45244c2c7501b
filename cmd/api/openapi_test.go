package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/footdata/footballd/internal/httpapi"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// apiDoc checks responses against the OpenAPI document the API serves.
// The document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: a
// JSON Schema validator that implements that draft fully checks them as
// written (type arrays, oneOf, $ref into components), formats included.
type apiDoc struct {
	paths map[string]map[string]struct {
		Responses map[string]json.RawMessage `json:"responses"`
	}
	raw map[string]any

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

const docURL = "file:///openapi.json"

var (
	theDocOnce sync.Once
	theDoc     *apiDoc
	theDocErr  error
)

// servedDoc is the served document, parsed once for all tests.
func servedDoc(t testing.TB) *apiDoc {
	t.Helper()
	theDocOnce.Do(func() { theDoc, theDocErr = parseAPIDoc(httpapi.OpenAPI) })
	if theDocErr != nil {
		t.Fatal(theDocErr)
	}
	return theDoc
}

func parseAPIDoc(b []byte) (*apiDoc, error) {
	d := &apiDoc{schemas: map[string]*jsonschema.Schema{}}
	var doc struct {
		Paths json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	if err := json.Unmarshal(doc.Paths, &d.paths); err != nil {
		return nil, fmt.Errorf("openapi.json paths: %w", err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	d.compiler = jsonschema.NewCompiler()
	d.compiler.DefaultDraft(jsonschema.Draft2020)
	d.compiler.AssertFormat()
	if err := d.compiler.AddResource(docURL, raw); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	d.raw, _ = raw.(map[string]any)
	return d, nil
}

// template is the documented path template that path (without query)
// matches, segment by segment, "" if none. A trailing slash is the same
// resource.
func (d *apiDoc) template(path string) string {
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for tmpl := range d.paths {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		match := true
		for i, s := range ts {
			if !(strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && segs[i] != "") && s != segs[i] {
				match = false
				break
			}
		}
		if match {
			return tmpl
		}
	}
	return ""
}

// check validates one response to GET path: its status must be one the
// operation documents, and its body must match that response's schema for
// contentType.
func (d *apiDoc) check(path string, status int, contentType string, body []byte) error {
	tmpl := d.template(path)
	if tmpl == "" {
		return fmt.Errorf("GET %s: no documented path matches", path)
	}
	op, ok := d.paths[tmpl]["get"]
	if !ok {
		return fmt.Errorf("GET %s: %s documents no GET", path, tmpl)
	}
	code := strconv.Itoa(status)
	ptr := "/paths/" + escapePointer(tmpl) + "/get/responses/" + code
	resp, ok := op.Responses[code]
	if !ok {
		return fmt.Errorf("GET %s (%s): status %d is not documented", path, tmpl, status)
	}
	var ref struct {
		Ref string `json:"$ref"`
	}
	if err := json.Unmarshal(resp, &ref); err != nil {
		return fmt.Errorf("GET %s: response %s: %w", path, code, err)
	}
	if ref.Ref != "" {
		ptr = strings.TrimPrefix(ref.Ref, "#")
	}
	content, _ := lookup(d.raw, ptr+"/content").(map[string]any)
	if _, ok := content[contentType]; !ok {
		return fmt.Errorf("GET %s (%s): status %d documents no %s body", path, tmpl, status, contentType)
	}
	sch, err := d.schema(ptr + "/content/" + escapePointer(contentType) + "/schema")
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("GET %s: body is not JSON: %w", path, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("GET %s (%s, %d): %v", path, tmpl, status, err)
	}
	return nil
}

// schema compiles the schema at a JSON pointer of the document, once.
func (d *apiDoc) schema(ptr string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.schemas[ptr]; ok {
		return s, nil
	}
	s, err := d.compiler.Compile(docURL + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
	if err != nil {
		return nil, fmt.Errorf("schema at %s: %w", ptr, err)
	}
	d.schemas[ptr] = s
	return s, nil
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// lookup follows a JSON pointer into a decoded document; nil if absent.
func lookup(v any, ptr string) any {
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)]
	}
	return v
}

// goldenRequests names the request each golden file in testdata/ answers:
// the path whose operation documents it and the X-Response-Control
// header it was made with (every golden is a 200).
var goldenRequests = map[string]struct{ path, representation string }{
	"competition-1":                         {"/v1/competitions/398", "full"},
	"competition-1-fixtures-md1":            {"/v1/competitions/398/fixtures", "full"},
	"competition-1-fixtures-md1-compressed": {"/v1/competitions/398/fixtures", "compressed"},
	"competition-1-teams":                   {"/v1/competitions/398/teams", "full"},
	"competition-1-teams-minified":          {"/v1/competitions/398/teams", "minified"},
	"competitions-2015":                     {"/v1/competitions", "full"},
	"competitions-2015-minified":            {"/v1/competitions", "minified"},
	"competitions-current":                  {"/v1/competitions", "full"},
	"fixture-h2h":                           {"/v1/fixtures/1", "full"},
	"fixture-h2h-compressed":                {"/v1/fixtures/1", "compressed"},
	"fixtures-n7":                           {"/v1/fixtures", "full"},
	"fixtures-p3-pl":                        {"/v1/fixtures", "full"},
	"search-manchester":                     {"/v1/teams", "full"},
	"soccerseason-1":                        {"/v1/soccerseasons/398", "full"},
	"table-1":                               {"/v1/competitions/398/leagueTable", "full"},
	"table-1-md10":                          {"/v1/competitions/398/leagueTable", "full"},
	"table-1-md10-minified":                 {"/v1/competitions/398/leagueTable", "minified"},
	"table-be2024":                          {"/v1/competitions/1/leagueTable", "full"},
	"table-be2024-minified":                 {"/v1/competitions/1/leagueTable", "minified"},
	"table-ec2024":                          {"/v1/competitions/1/leagueTable", "full"},
	"table-fl1-2016":                        {"/v1/competitions/434/leagueTable", "full"},
	"table-wc2018":                          {"/v1/competitions/467/leagueTable", "full"},
	"team":                                  {"/v1/teams/1", "full"},
	"team-fixtures-2015":                    {"/v1/teams/1/fixtures", "full"},
	"team-minified":                         {"/v1/teams/1", "minified"},
	"v4-area-germany":                       {"/v4/areas/2088", "full"},
	"v4-competition-bl1":                    {"/v4/competitions/BL1", "full"},
	"v4-head2head-brest-strasbourg":         {"/v4/matches/1/head2head", "full"},
	"v4-match-wc2022-shootout":              {"/v4/matches/1", "full"},
	"v4-standings-bl1-md10":                 {"/v4/competitions/2002/standings", "full"},
	"v4-team-matches-koeln-limit3":          {"/v4/teams/1/matches", "full"},
	"v4-scorers-wc2022":                     {"/v4/competitions/2000/scorers", "full"},
	"v4-person-mbappe":                      {"/v4/persons/1", "full"},
	"v4-person-matches-mbappe-limit3":       {"/v4/persons/1/matches", "full"},
	"v4-matches-wc-final-unfolded":          {"/v4/competitions/2000/matches", "full"},
	"v4-match-cl2024-league-phase":          {"/v4/matches/1", "full"},
	"v4-match-cl2024-playoff":               {"/v4/matches/1", "full"},
	"v4-match-cl2024-last16":                {"/v4/matches/1", "full"},
	"v4-match-cl2024-final":                 {"/v4/matches/1", "full"},
	"v4-standings-cl2024":                   {"/v4/competitions/2001/standings", "full"},
}

// unmasked stands for the instants golden files mask: a real response has
// a date-time there.
var masked, unmasked = []byte(`"(masked)"`), []byte(`"2026-03-13T12:00:00Z"`)

// TestGoldenResponsesMatchOpenAPI validates every golden response, status
// and body, against the operation the document gives its request. It
// reads no data and starts nothing, so it runs without ../shared.
func TestGoldenResponsesMatchOpenAPI(t *testing.T) {
	d := servedDoc(t)
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			req, ok := goldenRequests[name]
			if !ok {
				t.Fatalf("%s: add the request it answers to goldenRequests", f)
			}
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			body = bytes.ReplaceAll(body, masked, unmasked)
			if err := d.check(req.path, 200, "application/json;charset=UTF-8", body); err != nil {
				t.Errorf("X-Response-Control: %s: %v", req.representation, err)
			}
		})
	}
	var stale []string
	for name := range goldenRequests {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("goldenRequests names files testdata/ does not have: %v", stale)
	}
}
