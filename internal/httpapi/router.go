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
	WebApp         fs.FS // the built SPA (web/dist)
	SecureCookies  bool  // the public address is https
	Auth           *service.AuthService
	Users          *service.UserService
	Images         *service.ImageService
	Sharing        *service.SharingService
	Audit          service.AuditWriter
}

// api holds the services the handlers call.
type api struct {
	auth          *service.AuthService
	users         *service.UserService
	images        *service.ImageService
	sharing       *service.SharingService
	audit         service.AuditWriter
	secureCookies bool
}

// NewRouter builds the whole HTTP handler.
func NewRouter(d Deps) http.Handler {
	r := chi.NewRouter()
	r.Use(withRequestID)
	r.Use(withClientIP(d.TrustedProxies))
	r.Use(withAccessLog(d.Logger))
	r.Use(withRecover(d.Logger))
	r.Use(withSecurityHeaders(d.HSTS))
	r.Use(withAPINoStore)

	r.Get("/healthz", d.Readiness.healthz)
	r.Get("/readyz", d.Readiness.readyz)

	a := &api{auth: d.Auth, users: d.Users, images: d.Images, sharing: d.Sharing, audit: d.Audit, secureCookies: d.SecureCookies}
	r.Route("/api", func(r chi.Router) {
		// Without services (the router's own tests) only the fallbacks below answer.
		if d.Auth != nil {
			a.mountAuth(r)
			a.mountImageContent(r)
			r.Group(func(r chi.Router) {
				r.Use(a.requireAuth)
				a.mountUsers(r)
				a.mountImages(r)
				a.mountSharing(r)
			})
		}
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, domain.Errorf(domain.ENOTFOUND, "Not found."))
		})
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusMethodNotAllowed, errorBody{Message: "Method not allowed."})
		})
	})

	spa := spaHandler(d.WebApp)
	r.NotFound(spa.ServeHTTP)
	r.MethodNotAllowed(spa.ServeHTTP)
	return r
}
