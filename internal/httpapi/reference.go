package httpapi

import (
	"io/fs"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/httpapi/openapi"
)

// mountReference serves the OpenAPI document (converted from its YAML once,
// when the program starts) and the reference page that renders it, whose
// script and style sheet are files of their own so that the page keeps the
// Content-Security-Policy. All public: they describe the API, nothing more.
func mountReference(r chi.Router) {
	r.Get("/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		doc, err := openapi.JSON()
		if err != nil {
			writeError(w, r, domain.Wrap(domain.EINTERNAL, err, "Internal server error."))
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(doc) // a client that left gets nothing either way
	})
	r.Get("/docs", pageFile("index.html", "text/html; charset=utf-8"))
	r.Get("/docs/docs.js", pageFile("docs.js", "text/javascript; charset=utf-8"))
	r.Get("/docs/docs.css", pageFile("docs.css", "text/css; charset=utf-8"))
}

// pageFile serves one embedded file of the reference page.
func pageFile(name, contentType string) http.HandlerFunc {
	body, err := fs.ReadFile(openapi.Page, name)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body) // a client that left gets nothing either way
	}
}
