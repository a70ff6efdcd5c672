package httpapi

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the server's Prometheus metrics, served on a listener of
// their own (MEDISHARE_METRICS_ADDR), never on the public address.
// Requests are labelled by their route pattern, never by the raw path,
// which holds ids, and every label takes its values from a closed set.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	received *prometheus.CounterVec
	sent     *prometheus.CounterVec
}

// NewMetrics makes the registry with the Go runtime's and the process's
// collectors and the HTTP metrics; extra are more collectors (the
// database pool's, for one).
func NewMetrics(extra ...prometheus.Collector) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "medishare_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "medishare_http_request_duration_seconds", Help: "Time to answer HTTP requests, by route pattern, method and status.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "method", "status"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "medishare_http_requests_in_flight", Help: "HTTP requests being answered now.",
		}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "medishare_http_request_body_bytes_total", Help: "Bytes of request bodies read (uploads), by route pattern.",
		}, []string{"route"}),
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "medishare_http_response_body_bytes_total", Help: "Bytes of response bodies written (downloads), by route pattern.",
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.inFlight, m.received, m.sent,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registry.MustRegister(extra...)
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Registry is where other parts of the server register their metrics.
func (m *Metrics) Registry() prometheus.Registerer { return m.registry }

// withMetrics counts and times each request under its route pattern (known
// once the router has matched it), method and status, each from a closed
// set (routeLabel, methodLabel, statusLabel): a label value a client could
// choose would let anyone grow /metrics without end.
func withMetrics(m *Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			m.inFlight.Inc()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			body := &countingBody{ReadCloser: r.Body}
			r.Body = body
			defer func() {
				m.inFlight.Dec()
				route, method, status := routeLabel(r), methodLabel(r.Method), statusLabel(ww.Status())
				m.requests.WithLabelValues(route, method, status).Inc()
				m.duration.WithLabelValues(route, method, status).Observe(time.Since(start).Seconds())
				m.received.WithLabelValues(route).Add(float64(body.n.Load()))
				m.sent.WithLabelValues(route).Add(float64(ww.BytesWritten()))
			}()
			next.ServeHTTP(ww, r)
		})
	}
}

// otherLabel stands for every value outside a label's closed set.
const otherLabel = "other"

// routeLabel is the pattern of the route that answered r, or "other" when
// none did (an unknown API path, the web app and its files). The router
// has no wildcard routes, so a pattern ending in one is a subrouter
// (/api) that matched nothing inside.
func routeLabel(r *http.Request) string {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return otherLabel
	}
	pattern := rc.RoutePattern()
	if pattern == "" || strings.HasSuffix(pattern, "*") {
		return otherLabel
	}
	return pattern
}

// methodLabel is the method if the server knows it, else "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return method
	}
	return otherLabel
}

// statusLabel is a status code that HTTP defines, else "other" (a handler
// may write any code from 100 to 999).
func statusLabel(status int) string {
	if status == 0 {
		return strconv.Itoa(http.StatusOK) // nothing written: net/http answers 200
	}
	if http.StatusText(status) == "" {
		return otherLabel
	}
	return strconv.Itoa(status)
}

// countingBody counts the bytes read from a request body.
type countingBody struct {
	io.ReadCloser
	n atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
