package main

import (
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextsNameTheVersionsServed: every text that says what a replica
// serves names both versions it serves, v1 and v4: --help, the README's
// opening, the API root's description, the reference page's title, the
// OpenAPI document's title and the package docs of the replica, its HTTP
// server and its read model. (A 404 names what the version asked for
// serves: TestEndpoints and TestV4Errors.)
func TestTextsNameTheVersionsServed(t *testing.T) {
	w := theV4World(t)
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	packageDoc := func(dir string) string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var doc string
		for _, e := range entries {
			if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
				if err != nil {
					t.Fatal(err)
				}
				if f.Doc != nil {
					doc += f.Doc.Text()
				}
			}
		}
		return doc
	}
	for _, c := range []struct {
		name string
		text func() string
	}{
		{"api --help", func() string {
			var out strings.Builder
			if err := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &strings.Builder{}); err != nil {
				t.Fatal(err)
			}
			usage, _, _ := strings.Cut(out.String(), "\n\n  ")
			return usage
		}},
		{"README's opening", func() string {
			opening, _, _ := strings.Cut(read("../../README.md"), "```")
			return opening
		}},
		{"GET /", func() string {
			var index struct{ Description string }
			w.getJSON(t, "/", &index)
			return index.Description
		}},
		{"the reference page's title", func() string {
			_, title, _ := strings.Cut(read("../../internal/httpapi/docs/index.html"), "<title>")
			title, _, _ = strings.Cut(title, "</title>")
			return title
		}},
		{"the OpenAPI document's title", func() string {
			_, title, _ := strings.Cut(read("../../internal/httpapi/openapi.json"), `"title": "`)
			title, _, _ = strings.Cut(title, `"`)
			return title
		}},
		{"cmd/api's package doc", func() string { return packageDoc(".") }},
		{"internal/httpapi's package doc", func() string { return packageDoc("../../internal/httpapi") }},
		{"pkg/readmodel's package doc", func() string { return packageDoc("../../pkg/readmodel") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := c.text()
			for _, v := range []string{"v1", "v4"} {
				if !strings.Contains(text, v) {
					t.Errorf("%s does not name %s: %q", c.name, v, text)
				}
			}
		})
	}
}
