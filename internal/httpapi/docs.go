package httpapi

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// The API reference at /docs: Redoc's standalone bundle (docs/README.md)
// renders the OpenAPI document (/docs/openapi.json, free like the page;
// the same bytes as /v1/openapi.json) in the browser. Both files are in the binary,
// so the page needs nothing but this server.
var (
	//go:embed docs/index.html
	docsHTML []byte
	//go:embed docs/redoc.standalone.js
	redocJS []byte

	docsEntry  = newEntry(fiber.StatusOK, docsHTML, maxAgeStatic)
	redocEntry = newEntry(fiber.StatusOK, redocJS, maxAgeStatic)
)

const redocScript = "redoc.standalone.js"

// docsPolicy lets the page load only from this server: the script, the
// document (connect) and the search worker Redoc makes from a blob. Redoc
// styles itself with inline styles and, in its menu, shows a logo from
// its makers' CDN; the policy blocks that image, which Redoc then leaves
// out.
const docsPolicy = "default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'"

func (s *Server) docsPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentSecurityPolicy, docsPolicy)
	return s.send(c, requestOf(c), docsEntry, vHTML, vVaryEncoding)
}

func (s *Server) docsScript(c *fiber.Ctx) error {
	return s.send(c, requestOf(c), redocEntry, vJavaScript, vVaryEncoding)
}

// indexJSON is the API root: where the reference, the document and the
// v1 resources are, and which versions are served.
type indexJSON struct {
	Links struct {
		Self         href `json:"self"`
		Docs         href `json:"docs"`
		OpenAPI      href `json:"openapi"`
		Competitions href `json:"competitions"`
		Fixtures     href `json:"fixtures"`
	} `json:"_links"`
	Description string `json:"description"`
}

func (s *Server) index(c *fiber.Ctx) error {
	return s.respond(c, s.newKey(c, requestOf(c), "/", competitionsPath, full), func() (any, int) {
		base := s.baseURL(c)
		var out indexJSON
		out.Description = "Football data compatible with the football-data.org v1 API (under /v1) and v4 API (under /v4); the reference is at /docs."
		out.Links.Self = href{base + "/"}
		out.Links.Docs = href{base + "/docs"}
		out.Links.OpenAPI = href{base + "/v1/openapi.json"}
		out.Links.Competitions = href{base + "/v1/competitions"}
		out.Links.Fixtures = href{base + "/v1/fixtures"}
		return out, maxAgeStatic
	})
}
