package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/medishare/medishare/internal/domain"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxClientIP
)

// requestID returns the id given to the request by withRequestID.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// ClientIP returns the client address worked out by withClientIP.
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(ctxClientIP).(string)
	return ip
}

// withRequestID gives every request a random id, echoed in X-Request-Id.
// An id sent by the client is not trusted: it would let anyone forge log lines.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxRequestID, id)))
	})
}

// withClientIP records the client address. X-Forwarded-For is believed only
// when the peer is a trusted proxy, and then read from the right, skipping
// trusted hops, so a client cannot choose its own address (S22).
func withClientIP(trusted []netip.Prefix) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := clientIP(r, trusted)
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxClientIP, ip)))
		})
	}
}

func clientIP(r *http.Request, trusted []netip.Prefix) string {
	peer, ok := parseHostAddr(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	hops := r.Header.Values("X-Forwarded-For")
	var chain []string
	for _, h := range hops {
		for _, part := range strings.Split(h, ",") {
			chain = append(chain, strings.TrimSpace(part))
		}
	}
	client := peer
	for i := len(chain) - 1; i >= 0; i-- {
		addr, ok := parseHostAddr(chain[i])
		if !ok {
			break // a malformed hop: stop at the last address we could trust
		}
		client = addr
		if !isTrusted(addr, trusted) {
			break
		}
	}
	return client.String()
}

func parseHostAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// withAccessLog writes one structured line per request. The query string,
// headers and bodies are left out: they may carry tokens, codes or PHI.
func withAccessLog(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			note := &accessNote{}
			r = r.WithContext(context.WithValue(r.Context(), ctxAccessNote{}, note))
			defer func() {
				status := ww.Status()
				if status == 0 {
					status = http.StatusOK
				}
				route := ""
				if rc := chi.RouteContext(r.Context()); rc != nil {
					route = rc.RoutePattern()
				}
				logger.LogAttrs(r.Context(), slog.LevelInfo, "http request",
					slog.String("request_id", requestID(r.Context())),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.String("route", route),
					slog.String("user_id", note.userID),
					slog.Int("status", status),
					slog.Int("bytes", ww.BytesWritten()),
					slog.Duration("duration", time.Since(start)),
					slog.String("client_ip", ClientIP(r.Context())),
				)
			}()
			next.ServeHTTP(ww, r)
		})
	}
}

// accessNote is what inner handlers tell the access log: the signed-in
// caller's id (never a name, an email or any content).
type accessNote struct{ userID string }

type ctxAccessNote struct{}

// noteUser tells the access log who the caller is.
func noteUser(ctx context.Context, userID string) {
	if note, ok := ctx.Value(ctxAccessNote{}).(*accessNote); ok {
		note.userID = userID
	}
}

// withRecover turns a panic into a JSON 500 carrying the request id, and logs
// the stack under that id.
func withRecover(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				rec := recover()
				if rec == nil {
					return
				}
				if rec == http.ErrAbortHandler {
					panic(rec) // the server's own way to abort a response
				}
				logger.Error("panic", "request_id", requestID(r.Context()), "panic", rec, "stack", string(debug.Stack()))
				writeError(w, r, domain.Errorf(domain.EINTERNAL, "Internal server error."))
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// contentSecurityPolicy allows only the app's own files: no inline script or
// style, no framing of the app by anyone (S21). 'wasm-unsafe-eval' lets the
// viewer's decoding workers compile the WebAssembly codecs the app itself
// serves (JPEG 2000, JPEG-LS, JPEG XL, HTJ2K, lossless JPEG); it allows no
// eval() of JavaScript (docs/security.md S21).
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; media-src 'self' blob:; " +
	"frame-src 'self' blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// withSecurityHeaders sets the headers of S21 on every response.
func withSecurityHeaders(hsts bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Security-Policy", contentSecurityPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "no-referrer")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Cross-Origin-Resource-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
			if hsts {
				h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
			}
			next.ServeHTTP(w, r)
		})
	}
}

// withAPINoStore keeps API and DICOMweb answers, which hold PHI, out of every cache. It
// looks at the path rather than sitting on the /api sub-router so that even
// that router's own 404s carry the header.
func withAPINoStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/dicomweb/") {
			w.Header().Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}
