package httpapi

import (
	"reflect"
	"testing"

	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// TestFiltersWithoutQuery holds parseFilters' shortcut for a request
// without a query to the steps it skips: with no query, every step, for
// every filter an endpoint may accept, leaves the filters unset and
// refuses nothing. A step that gains a default fails here.
func TestFiltersWithoutQuery(t *testing.T) {
	app := fiber.New()
	for _, uri := range []string{"/v1/competitions/1/leagueTable", "/v1/competitions/1/leagueTable?"} {
		for bit := allowed(1); bit <= fAPI; bit <<= 1 {
			for _, accept := range []allowed{bit, bit<<1 - 1} {
				var rc fasthttp.RequestCtx
				rc.Request.SetRequestURI(uri)
				c := app.AcquireCtx(&rc)
				if n := c.Context().QueryArgs().Len(); n != 0 {
					t.Fatalf("%s has %d query arguments, want none", uri, n)
				}
				got, err := parseQuery(c, accept, readmodel.Snapshot{})
				if err != nil || !reflect.DeepEqual(got, unsetFilters) {
					t.Errorf("%s, filters %b: %+v, %v; want %+v, no error", uri, accept, got, err, unsetFilters)
				}
				app.ReleaseCtx(c)
			}
		}
	}
}
