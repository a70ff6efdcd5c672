package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/service"
	"github.com/medishare/medishare/internal/store/postgres"
)

// poolMetrics report the database pool's statistics at each scrape.
func poolMetrics(db *postgres.DB) []prometheus.Collector {
	gauge := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, v)
	}
	counter := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, v)
	}
	return []prometheus.Collector{
		gauge("medishare_db_pool_total_conns", "Connections in the pool.", func() float64 { return float64(db.Pool.Stat().TotalConns()) }),
		gauge("medishare_db_pool_acquired_conns", "Connections in use.", func() float64 { return float64(db.Pool.Stat().AcquiredConns()) }),
		gauge("medishare_db_pool_idle_conns", "Idle connections.", func() float64 { return float64(db.Pool.Stat().IdleConns()) }),
		gauge("medishare_db_pool_max_conns", "The pool's size limit.", func() float64 { return float64(db.Pool.Stat().MaxConns()) }),
		counter("medishare_db_pool_acquires_total", "Connections acquired.", func() float64 { return float64(db.Pool.Stat().AcquireCount()) }),
		counter("medishare_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.", func() float64 { return float64(db.Pool.Stat().EmptyAcquireCount()) }),
		counter("medishare_db_pool_acquire_seconds_total", "Time spent acquiring connections.", func() float64 { return db.Pool.Stat().AcquireDuration().Seconds() }),
	}
}

// serviceMetrics report what the services count: open message streams,
// the mail outbox, audit write failures and preview renders.
func serviceMetrics(s *service.Services, previews *medimg.Previewer) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "medishare_message_streams_open", Help: "Message event streams open on this instance."},
			func() float64 { return float64(s.Messages.OpenStreams()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "medishare_mail_outbox_queued", Help: "Mails waiting in the outbox (every instance's), -1 when the database does not answer."},
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				queued, _, err := s.Outbox.State(ctx)
				if err != nil {
					return -1
				}
				return float64(queued)
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "medishare_mail_sent_total", Help: "Mails this instance delivered to the relay."},
			func() float64 { return float64(s.Outbox.Sent()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "medishare_mail_failures_total", Help: "Failed mail deliveries of this instance (retried unless given up)."},
			func() float64 { return float64(s.Outbox.Failed()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "medishare_audit_write_failures_total", Help: "Audit entries that could not be written."},
			func() float64 { return float64(service.AuditWriteFailures()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "medishare_preview_renders_total", Help: "Previews rendered (stored previews served again are not counted)."},
			func() float64 { return float64(previews.Renders()) }),
	}
}
