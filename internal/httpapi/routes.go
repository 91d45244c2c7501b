package httpapi

import (
	_ "embed"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// OpenAPI is the OpenAPI 3 description of the API, v1's and v4's routes,
// served at /v1/openapi.json and checked against these routes by a test.
//
//go:embed openapi.json
var OpenAPI []byte

var openAPIEntry = newEntry(fiber.StatusOK, OpenAPI, maxAgeStatic)

// routes is the whole HTTP surface on one screen: both API versions (and
// v1's deprecated alpha), each in its group behind the one middleware that
// authenticates and counts callers.
func (s *Server) routes() {
	app := s.app
	// One middleware for every request: metrics, the request's state, the
	// refusal of what the API cannot answer and preflights (each stage of
	// Fiber's chain costs a route match).
	app.Use(s.observe)
	// Load balancers probe the API port; /metrics is on the admin
	// listener only (AdminHandler).
	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	// The way in for people: links to the reference and the resources.
	// Static, so they need no token, count against no limit and are
	// served while the replica replays the stream.
	app.Get("/", s.index)
	app.Get("/docs", s.docsPage)
	app.Get("/docs/"+redocScript, s.docsScript)
	// The document the page loads, free as the page is: a visitor with the
	// anonymous day budget could otherwise open the reference only a few
	// times. Clients keep /v1/openapi.json, an API request like the others.
	app.Get("/docs/openapi.json", s.docsOpenAPI)

	v1 := app.Group("/v1", s.authenticate(v1))
	// Fiber tries a request's routes in the order they were added, a match
	// each: the resources clients ask for most, a fixture and a league
	// table, come first, and the competitions under their old name
	// (/v1/soccerseasons) last.
	v1.Get("/fixtures/:id", s.showFixture(competitionsPath))
	v1.Get("/competitions/:id/leagueTable", s.leagueTable(competitionsPath))
	v1.Get("/competitions", s.listCompetitions(competitionsPath))
	v1.Get("/competitions/:id", s.showCompetition(competitionsPath))
	v1.Get("/competitions/:id/teams", s.competitionTeams(competitionsPath))
	v1.Get("/competitions/:id/fixtures", s.competitionFixtures(competitionsPath))
	v1.Get("/fixtures", s.listFixtures(competitionsPath))
	v1.Get("/teams", s.searchTeams)
	v1.Get("/teams/:id", s.showTeam(competitionsPath))
	v1.Get("/teams/:id/fixtures", s.teamFixtures(competitionsPath))
	v1.Get("/teams/:id/players", s.teamPlayers(competitionsPath))
	v1.Get("/openapi.json", s.openAPI)
	if s.opts.Hub != nil {
		v1.Get(eventsPath[len("/v1"):], s.events)
	}
	v1.Get("/soccerseasons", s.listCompetitions(soccerseasonsPath))
	v1.Get("/soccerseasons/:id", s.showCompetition(soccerseasonsPath))
	v1.Get("/soccerseasons/:id/teams", s.competitionTeams(soccerseasonsPath))
	v1.Get("/soccerseasons/:id/leagueTable", s.leagueTable(soccerseasonsPath))
	v1.Get("/soccerseasons/:id/fixtures", s.competitionFixtures(soccerseasonsPath))

	// v4 answers from the same read model, clients and budgets as v1, in
	// upstream's v4 shapes (v4*.go). Its routes are tried in the same way:
	// a match and a table first.
	v4 := app.Group("/v4", s.authenticate(v4))
	v4.Get("/matches/:id", s.v4Match)
	v4.Get("/matches/:id/head2head", s.v4HeadToHead)
	v4.Get("/competitions/:id/standings", s.v4Standings)
	v4.Get("/competitions/:id/matches", s.v4CompetitionMatches)
	v4.Get("/competitions", s.v4Competitions)
	v4.Get("/competitions/:id", s.v4Competition)
	v4.Get("/competitions/:id/teams", s.v4CompetitionTeams)
	v4.Get("/matches", s.v4Matches)
	v4.Get("/teams", s.v4Teams)
	v4.Get("/teams/:id", s.v4Team)
	v4.Get("/teams/:id/matches", s.v4TeamMatches)
	v4.Get("/areas", s.v4AreaList)
	v4.Get("/areas/:id", s.v4AreaOne)
	v4.Get("/competitions/:id/scorers", s.v4Scorers)
	v4.Get("/persons/:id", s.v4Person)
	v4.Get("/persons/:id/matches", s.v4PersonMatches)
	// v2's name, which upstream still answers: the recorded person
	// matches came through it (spec v4-samples/SOURCES.md).
	v4.Get("/players/:id", s.v4Person)
	v4.Get("/players/:id/matches", s.v4PersonMatches)

	// The deprecated alpha version serves the resources it had, under
	// its old name for competitions; v1-only resources are 403.
	alpha := app.Group("/alpha", s.authenticate(alpha))
	alpha.Get("/soccerseasons", s.listCompetitions(alphaPath))
	alpha.Get("/soccerseasons/:id", s.showCompetition(alphaPath))
	alpha.Get("/soccerseasons/:id/teams", s.competitionTeams(alphaPath))
	alpha.Get("/soccerseasons/:id/leagueTable", s.leagueTable(alphaPath))
	alpha.Get("/soccerseasons/:id/fixtures", s.competitionFixtures(alphaPath))
	alpha.Get("/fixtures", s.listFixtures(alphaPath))
	alpha.Get("/fixtures/:id", s.showFixture(alphaPath))
	alpha.Get("/teams/:id", s.showTeam(alphaPath))
	alpha.Get("/teams/:id/fixtures", s.teamFixtures(alphaPath))
	alpha.Get("/teams/:id/players", s.teamPlayers(alphaPath))
	alpha.Get("/competitions*", s.v1Only)
	alpha.Get("/teams", s.v1Only)
}

// apiVersion is the first path segment.
type apiVersion string

const (
	v1    apiVersion = "v1"
	v4    apiVersion = "v4"
	alpha apiVersion = "alpha"
)

func (s *Server) v1Only(c *fiber.Ctx) error {
	return restricted("%s is not available in this API version (alpha); use /v1%s", c.Path(), c.Path()[len("/alpha"):])
}

func (s *Server) openAPI(c *fiber.Ctx) error {
	return s.send(c, requestOf(c), openAPIEntry, vContentType, vVaryToken)
}

func (s *Server) docsOpenAPI(c *fiber.Ctx) error {
	return s.send(c, requestOf(c), openAPIEntry, vContentType, vVaryEncoding)
}

func (s *Server) healthz(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	return c.SendString(`{"status":"ok"}`)
}

func (s *Server) readyz(c *fiber.Ctx) error {
	status, body := s.readiness()
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	return c.Status(status).SendString(body)
}

// readiness is 200 once the replica has replayed the stream and is not
// draining, with the stream sequence it serves; load balancers route to it
// only then. A replica replaying a stream that replaced the one it served
// (a restore) is not ready, and says so; so is one catching up after its
// consumer stalled.
func (s *Server) readiness() (int, string) {
	select {
	case <-s.draining:
		return fiber.StatusServiceUnavailable, `{"status":"draining"}`
	default:
	}
	if !s.model.Ready() {
		if s.model.Stats().Replaying {
			return fiber.StatusServiceUnavailable, `{"status":"replaying","reason":"the stream was replaced (restored from a backup, or deleted): replaying it"}`
		}
		if reason := s.waiting.Load(); reason != nil {
			body, _ := json.Marshal(struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
			}{"waiting", *reason})
			return fiber.StatusServiceUnavailable, string(body)
		}
		return fiber.StatusServiceUnavailable, `{"status":"replaying"}`
	}
	if st := s.model.Stats(); st.CatchingUp {
		body, _ := json.Marshal(struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
		}{"catching_up", st.CatchUpReason})
		return fiber.StatusServiceUnavailable, string(body)
	}
	// The sequence served lets a script wait until an edit it made is
	// served (scripts/run.sh after its import).
	return fiber.StatusOK, `{"status":"ready","sequence":` + strconv.FormatUint(s.model.Stats().ServedSeq, 10) + `}`
}

// AdminHandler serves the operators' endpoints on the admin listener:
// /metrics, /healthz and /readyz.
func (s *Server) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.opts.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(fiber.HeaderContentType, contentTypeJSON)
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		status, body := s.readiness()
		w.Header().Set(fiber.HeaderContentType, contentTypeJSON)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
	return mux
}

// preflightResponse is the spec's answer to OPTIONS, byte for byte. It is
// written on the raw connection because fasthttp drops Content-Length from
// every 204 response, and the spec lists "Content-Length: 0".
var preflightResponse = []byte("HTTP/1.1 204 No Content\r\n" +
	"Access-Control-Allow-Methods: GET\r\n" +
	"Access-Control-Allow-Origin: *\r\n" +
	"Access-Control-Allow-Headers: x-auth-token, x-response-control\r\n" +
	"Content-Length: 0\r\n" +
	"Content-Type: text/plain\r\n" +
	"Connection: close\r\n\r\n")

// preflight answers OPTIONS on any resource path with exactly the spec's
// headers, and reports whether it did: no token, no limits. Answered before
// routing, not as an OPTIONS route, so that the router still says 404 for
// unknown paths rather than 405. The connection closes afterwards:
// preflights are rare and the browser's next request opens a new one.
func (s *Server) preflight(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodOptions {
		return false
	}
	if apiVersionOf(c.Path()) == "" {
		return false
	}
	c.Context().HijackSetNoResponse(true)
	c.Context().Hijack(func(conn net.Conn) {
		if _, err := conn.Write(preflightResponse); err != nil {
			s.log.Debug("preflight write", "err", err)
		}
	})
	return true
}
