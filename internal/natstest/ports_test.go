package natstest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoTestPicksAPort: no test, and no test support package, has a
// function that listens, closes the listener and hands its address on, as
// FreeAddr did: the port was free when picked and anyone's by the time the
// server it was meant for bound it. A server a test starts binds port 0
// itself and the test reads back the address it got (a test that must
// hold an address before its server runs holds a relay, internal/relay).
// scripts/bench, the program make bench runs, is not a test and still
// picks ports for the nats-server and nginx processes it starts.
func TestNoTestPicksAPort(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		support := strings.Contains(filepath.ToSlash(path), "internal/natstest/") || strings.Contains(filepath.ToSlash(path), "internal/relay/")
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") && !(support && strings.HasSuffix(path, ".go")) {
			return nil
		}
		for _, at := range portPickers(t, path, nil) {
			t.Errorf("%s: picks a port for someone else to bind: let the server bind port 0 and read back what it got", at)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The check finds the helper it replaced.
	freeAddr := `package natstest
func FreeAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}`
	if got := portPickers(t, "freeaddr.go", freeAddr); len(got) != 1 {
		t.Errorf("FreeAddr's source: found %v, want it", got)
	}
}

// portPickers lists where in a Go file (src, or the file at path when nil)
// a function calls net.Listen, closes that listener and returns its
// address.
func portPickers(t *testing.T, path string, src any) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch fn := n.(type) {
		case *ast.FuncDecl:
			body = fn.Body
		case *ast.FuncLit:
			body = fn.Body
		}
		if body != nil && picksPort(body) {
			found = append(found, fset.Position(n.Pos()).String())
		}
		return true
	})
	return found
}

// picksPort says whether body listens with net.Listen, closes the
// listener and returns an expression of its Addr.
func picksPort(body *ast.BlockStmt) bool {
	listeners := map[string]bool{}
	closed, returned := map[string]bool{}, map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false // a function of its own, inspected on its own
		case *ast.AssignStmt:
			if call, ok := s.Rhs[0].(*ast.CallExpr); ok && isCall(call, "net", "Listen") {
				if id, ok := s.Lhs[0].(*ast.Ident); ok {
					listeners[id.Name] = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := s.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Close" {
				if id, ok := sel.X.(*ast.Ident); ok {
					closed[id.Name] = true
				}
			}
		case *ast.ReturnStmt:
			for _, r := range s.Results {
				ast.Inspect(r, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Addr" {
						if id, ok := sel.X.(*ast.Ident); ok {
							returned[id.Name] = true
						}
					}
					return true
				})
			}
		}
		return true
	})
	for l := range listeners {
		if closed[l] && returned[l] {
			return true
		}
	}
	return false
}

// isCall says whether call is pkg.name(...).
func isCall(call *ast.CallExpr, pkg, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
