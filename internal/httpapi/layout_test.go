package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// parsePackage parses the package's own (non-test) files with comments.
func parsePackage(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, e := range names {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return fset, files
}

// TestRoutesInOneTable: every route of both versions is registered in
// routes.go, so that its one screen is the whole API (STYLE.md).
func TestRoutesInOneTable(t *testing.T) {
	fset, files := parsePackage(t)
	for name, f := range files {
		if name == "routes.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Get" && sel.Sel.Name != "Group") {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(lit.Value, `"/`) {
				t.Errorf("%s: route %s registered outside routes.go", fset.Position(call.Pos()), lit.Value)
			}
			return true
		})
	}
}

// TestV4ResponsesNamed: each v4 answer's envelope is a named type
// (v4responses.go), not a struct spelled out inside its handler.
func TestV4ResponsesNamed(t *testing.T) {
	fset, files := parsePackage(t)
	for name, f := range files {
		if !strings.HasPrefix(name, "v4") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok {
				if _, anonymous := lit.Type.(*ast.StructType); anonymous {
					t.Errorf("%s: an anonymous struct; name the response's shape in v4responses.go", fset.Position(lit.Pos()))
				}
			}
			return true
		})
	}
}

// TestPackageDocIsTrue: the package doc names both versions the route
// table serves, and every file it or any comment of the package points
// to exists.
func TestPackageDocIsTrue(t *testing.T) {
	_, files := parsePackage(t)
	doc := files["doc.go"].Doc.Text()
	for _, v := range []apiVersion{v1, v4} {
		if !strings.Contains(doc, string(v)) {
			t.Errorf("the package doc does not name %s:\n%s", v, doc)
		}
	}
	goFile := regexp.MustCompile(`\b[a-z0-9_]+\.go\b`)
	for name, f := range files {
		for _, g := range f.Comments {
			for _, ref := range goFile.FindAllString(g.Text(), -1) {
				if _, err := os.Stat(ref); err != nil {
					t.Errorf("%s: a comment names %s, which is not in the package", name, ref)
				}
			}
		}
	}
}
