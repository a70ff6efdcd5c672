package service

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// AdminStore is what the dashboards need from the database.
type AdminStore interface {
	AuditWriter
	Activity(ctx context.Context, first, last time.Time) ([]domain.DayActivity, error)
	CountUsers(ctx context.Context) (int, error)
	// CountImages, CountSharedImages: of one uploader or sharer, or of everyone ("").
	CountImages(ctx context.Context, uploadedBy string) (int, error)
	CountPatientsOf(ctx context.Context, uploaderID string) (int, error)
	CountSharedImages(ctx context.Context, sharerID string, now time.Time) (int, error)
}

// System is what the server knows about itself and its dependencies, for
// the health panel.
type System struct {
	Version     string
	StorageKind string // "filesystem" or "s3"
	MailKind    string // "log" or "smtp"
	// PingDatabase and PingStorage check that each dependency answers.
	PingDatabase, PingStorage func(ctx context.Context) error
}

// AdminService reports the system's health, activity and counts to those
// who monitor it (system:monitor), and their own counts to uploaders.
type AdminService struct {
	store   AdminStore
	system  System
	outbox  *Outbox
	chain   *AuditChainService
	started time.Time
	now     Clock
}

// NewAdminService returns the admin dashboard's use cases.
func NewAdminService(store AdminStore, system System, outbox *Outbox, chain *AuditChainService, now Clock) *AdminService {
	return &AdminService{store: store, system: system, outbox: outbox, chain: chain, started: now(), now: now}
}

// Health is the health panel's content.
type Health struct {
	Version   string
	StartedAt time.Time
	Database  struct {
		OK        bool
		LatencyMs float64
	}
	Storage struct {
		OK   bool
		Kind string
	}
	Mail struct {
		OK     bool
		Kind   string
		Queued int
	}
	// AuditChain is the latest check of the whole chain, by any instance;
	// a zero CheckedAt before the first, or when the database cannot say.
	AuditChain domain.AuditChainReport
}

// pingTimeout bounds each dependency's check, like the readiness probe's.
const pingTimeout = 2 * time.Second

var errNotAdminHealth = forbidden("Only admins can see the system's health and activity.")

// Health checks the database and the storage, and reports the mail outbox
// and the latest check of the audit chain (by /api/audit/verify, `medishare
// audit verify` or the background check, on any instance): a break, once
// found, shows until a later check of the whole chain finds it intact.
// Errors: EFORBIDDEN (without system:monitor).
func (s *AdminService) Health(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (Health, error) {
	if err := require(ctx, s.store, p, domain.PermSystemMonitor, meta, errNotAdminHealth); err != nil {
		return Health{}, err
	}
	var h Health
	h.Version, h.StartedAt = s.system.Version, s.started
	start := time.Now()
	h.Database.OK = ping(ctx, s.system.PingDatabase)
	if h.Database.OK {
		h.Database.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
	}
	h.Storage.OK, h.Storage.Kind = ping(ctx, s.system.PingStorage), s.system.StorageKind
	h.Mail.Queued, h.Mail.OK, _ = s.outbox.State(ctx) // the database's state is reported above
	h.Mail.Kind = s.system.MailKind
	h.AuditChain, _ = s.chain.Latest(ctx) // the database's state is reported above
	return h, nil
}

func ping(ctx context.Context, check func(context.Context) error) bool {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	return check(ctx) == nil
}

// The days GET /api/admin/activity covers: two weeks unless asked.
const (
	ActivityDaysDefault = 14
	activityDaysMax     = 90
)

// Activity returns what happened on each of the last days days (today
// included, days in domain.Zone), oldest first, days without events with
// zeros. Errors: EFORBIDDEN (without system:monitor), EVALIDATION.
func (s *AdminService) Activity(ctx context.Context, p *domain.Principal, days int, meta domain.RequestMeta) ([]domain.DayActivity, error) {
	if err := require(ctx, s.store, p, domain.PermSystemMonitor, meta, errNotAdminHealth); err != nil {
		return nil, err
	}
	if days < 1 || days > activityDaysMax {
		return nil, domain.ValidationError("Please check the number of days.", domain.FieldError{Field: "days", Message: "must be between 1 and 90"})
	}
	now := s.now().In(domain.Zone)
	last := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, domain.Zone)
	first := last.AddDate(0, 0, 1-days)
	counted, err := s.store.Activity(ctx, first, last)
	if err != nil {
		return nil, err
	}
	byDay := make(map[string]domain.DayActivity, len(counted))
	for _, c := range counted {
		byDay[c.Day.Format(time.DateOnly)] = c
	}
	out := make([]domain.DayActivity, days)
	for i := range out {
		day := first.AddDate(0, 0, i)
		if c, ok := byDay[day.Format(time.DateOnly)]; ok {
			out[i] = c
		}
		out[i].Day = day
	}
	return out, nil
}

// Stats are the dashboard's three numbers.
type Stats struct {
	TotalImages, SharedImages, TotalUsers int
}

// Stats returns the dashboard counts: the whole system's with
// system:monitor; otherwise, with images:upload, the caller's own uploads,
// own patients (those they uploaded for) and the images they share now
// (open, unexpired shares). Errors: EFORBIDDEN, EUNAVAILABLE.
func (s *AdminService) Stats(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (Stats, error) {
	var st Stats
	var err error
	switch {
	case p.Can(domain.PermSystemMonitor):
		if st.TotalUsers, err = s.store.CountUsers(ctx); err == nil {
			st.TotalImages, err = s.store.CountImages(ctx, "")
		}
		if err == nil {
			st.SharedImages, err = s.store.CountSharedImages(ctx, "", s.now())
		}
	case p.Can(domain.PermImagesUpload):
		if st.TotalUsers, err = s.store.CountPatientsOf(ctx, p.User.ID); err == nil {
			st.TotalImages, err = s.store.CountImages(ctx, p.User.ID)
		}
		if err == nil {
			st.SharedImages, err = s.store.CountSharedImages(ctx, p.User.ID, s.now())
		}
	default:
		return Stats{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Reason: "dashboard: missing permission " + domain.PermImagesUpload},
			forbidden("The dashboard is for providers and admins."))
	}
	return st, err
}
