// Package httpapi is the HTTP face of MediShare: the chi router, middleware,
// one file per resource, the JSON helpers, the error-kind-to-status table and
// the serving of the embedded app.
package httpapi

import (
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// Deps is what the router needs from the rest of the program.
type Deps struct {
	Logger         *slog.Logger
	TrustedProxies []netip.Prefix
	HSTS           bool // the public address is https
	Readiness      *Readiness
	WebApp         fs.FS  // the built SPA (web/dist)
	SecureCookies  bool   // the public address is https
	PublicURL      string // where people reach the app; its origin may use the refresh cookie
	// Services are the use cases; without them (the router's own tests) only
	// the health checks, the app and the API's fallbacks answer.
	Services *service.Services
	// Metrics, when set, counts and times every request by route pattern.
	Metrics *Metrics
}

// api holds the services the handlers call.
type api struct {
	*service.Services
	secureCookies bool
	publicOrigin  string
	draining      <-chan struct{} // closed when shutdown begins
}

// NewRouter builds the whole HTTP handler.
func NewRouter(d Deps) http.Handler {
	r := chi.NewRouter()
	r.Use(withRequestID)
	if d.Metrics != nil {
		r.Use(withMetrics(d.Metrics))
	}
	r.Use(withClientIP(d.TrustedProxies))
	r.Use(withAccessLog(d.Logger))
	r.Use(withRecover(d.Logger))
	r.Use(withSecurityHeaders(d.HSTS))
	r.Use(withAPINoStore)

	r.Get("/healthz", d.Readiness.healthz)
	r.Get("/readyz", d.Readiness.readyz)

	r.Route("/api", func(r chi.Router) {
		r.Use(withCleanQuery)
		mountReference(r)
		if d.Services != nil {
			a := &api{Services: d.Services, secureCookies: d.SecureCookies, publicOrigin: originOf(d.PublicURL), draining: d.Readiness.Draining()}
			a.mountAuth(r)
			a.mountImageContent(r)
			r.Group(func(r chi.Router) {
				r.Use(a.requireAuth)
				a.mountUsers(r)
				a.mountImages(r)
				a.mountSharing(r)
				a.mountAudit(r)
				a.mountMessages(r)
				a.mountAdmin(r)
				a.mountAnalysis(r)
			})
		}
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, domain.Errorf(domain.ENOTFOUND, "Not found."))
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusMethodNotAllowed, errorBody{Message: "Method not allowed."})
		})
	})

	if d.Services != nil {
		a := &api{Services: d.Services, secureCookies: d.SecureCookies, publicOrigin: originOf(d.PublicURL), draining: d.Readiness.Draining()}
		r.Route("/dicomweb", func(r chi.Router) { a.mountDICOMweb(r, a.requireAuth) })
	}

	spa := spaHandler(d.WebApp)
	r.NotFound(spa.ServeHTTP)
	r.MethodNotAllowed(spa.ServeHTTP)
	return r
}
