package httpapi

import (
	"io"
	"net/http"
	"strconv"
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
// which holds ids.
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
// once the router has matched it); paths no route matched count as "other".
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
				route := "other"
				if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
					route = rc.RoutePattern()
				}
				status := ww.Status()
				if status == 0 {
					status = http.StatusOK
				}
				code := strconv.Itoa(status)
				m.requests.WithLabelValues(route, r.Method, code).Inc()
				m.duration.WithLabelValues(route, r.Method, code).Observe(time.Since(start).Seconds())
				m.received.WithLabelValues(route).Add(float64(body.n.Load()))
				m.sent.WithLabelValues(route).Add(float64(ww.BytesWritten()))
			}()
			next.ServeHTTP(ww, r)
		})
	}
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
