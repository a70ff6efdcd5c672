package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
)

// AuditStore reads the audit log.
type AuditStore interface {
	AuditWriter
	ListAudit(ctx context.Context, scope domain.AuditScope, f domain.AuditFilter, page domain.Page) ([]domain.AuditRecord, domain.PageOf, error)
	EachAudit(ctx context.Context, scope domain.AuditScope, f domain.AuditFilter, fn func(domain.AuditRecord) error) error
}

// AuditService lets people read the audit log, each within their scope.
type AuditService struct {
	store AuditStore
	chain *AuditChainService
}

// NewAuditService returns the audit log's readers.
func NewAuditService(store AuditStore, chain *AuditChainService) *AuditService {
	return &AuditService{store: store, chain: chain}
}

// AuditQuery is a reader's filters as they were sent.
type AuditQuery struct {
	Search, Action, Status, From, To string
	// About is "images" for the entries about any image; ImageID names one.
	About, ImageID string
}

// auditPageSizes are the page sizes the audit screen offers.
var auditPageSizes = []int{5, 10, 20}

var errNoAuditRight = forbidden("You are not allowed to read the audit log.")

// List returns one page of the audit log as the caller may see it (the scope
// of domain.AuditScopeOf: everything with audit:read-all), newest first.
// Addresses and browsers of other people's actions are blanked unless the
// caller reads the whole log. Errors: EFORBIDDEN without audit:read;
// EINVALID for a filter or page size it does not know.
func (s *AuditService) List(ctx context.Context, p *domain.Principal, q AuditQuery, page domain.Page, meta domain.RequestMeta) ([]domain.AuditRecord, domain.PageOf, error) {
	if err := require(ctx, s.store, p, domain.PermAuditRead, meta, errNoAuditRight); err != nil {
		return nil, domain.PageOf{}, err
	}
	f, err := s.filter(q, page)
	if err != nil {
		return nil, domain.PageOf{}, err
	}
	scope := domain.AuditScopeOf(p)
	records, pageOf, err := s.store.ListAudit(ctx, scope, f, page)
	if err != nil {
		return nil, domain.PageOf{}, err
	}
	for i := range records {
		records[i] = shownIn(scope, records[i])
	}
	return records, pageOf, nil
}

// shownIn is an entry as a reader in scope sees it: without the address
// and browser of someone else's action unless the reader reads everything.
func shownIn(scope domain.AuditScope, r domain.AuditRecord) domain.AuditRecord {
	if !scope.Reveals(r) {
		r.IP, r.UserAgent = "", ""
	}
	return r
}

func (s *AuditService) filter(q AuditQuery, page domain.Page) (domain.AuditFilter, error) {
	var f domain.AuditFilter
	var errs []domain.FieldError
	if !slices.Contains(auditPageSizes, page.Limit) {
		errs = append(errs, domain.FieldError{Field: "limit", Message: "must be 5, 10 or 20"})
	}
	f.Search = escapeLike(truncate(strings.TrimSpace(q.Search), 100))
	if q.Action != "" {
		if !domain.IsAuditAction(q.Action) {
			errs = append(errs, domain.FieldError{Field: "action", Message: "is not an action the audit log records"})
		}
		f.Action = domain.AuditAction(q.Action)
	}
	switch q.Status {
	case "", "success", "failure":
		f.Status = q.Status
	default:
		errs = append(errs, domain.FieldError{Field: "status", Message: "must be success or failure"})
	}
	switch q.About {
	case "":
	case "images":
		f.AboutImages = true
	default:
		errs = append(errs, domain.FieldError{Field: "about", Message: "must be images"})
	}
	if q.ImageID != "" {
		if _, err := uuid.Parse(q.ImageID); err != nil {
			errs = append(errs, domain.FieldError{Field: "imageId", Message: "must be an image id"})
		}
		f.ImageID = q.ImageID
	}
	var ok bool
	if f.From, ok = s.bound(q.From, false); !ok {
		errs = append(errs, domain.FieldError{Field: "from", Message: "must be a date (YYYY-MM-DD) or a time (RFC 3339)"})
	}
	if f.To, ok = s.bound(q.To, true); !ok {
		errs = append(errs, domain.FieldError{Field: "to", Message: "must be a date (YYYY-MM-DD) or a time (RFC 3339)"})
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		errs = append(errs, domain.FieldError{Field: "to", Message: "must be after from"})
	}
	if len(errs) > 0 {
		return f, domain.ValidationError("Please check the filters.", errs...)
	}
	return f, nil
}

// bound reads a filter's time: an RFC 3339 time as it is, or a date as the
// start of that day in the product's zone (domain.Zone) (for the end of a range, the
// start of the next day, so that the day is included). Empty is no bound.
func (s *AuditService) bound(v string, end bool) (time.Time, bool) {
	if v == "" {
		return time.Time{}, true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	day, err := time.ParseInLocation("2006-01-02", v, domain.Zone)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		day = day.AddDate(0, 0, 1)
	}
	return day, true
}

// Verify checks the whole hash chain of the audit log and its checkpoint
// (S20), and keeps the result for the health panel: only for readers of
// the whole log (audit:read-all), since the chain runs through every
// entry. Errors: EFORBIDDEN, EUNAVAILABLE.
func (s *AuditService) Verify(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (domain.AuditChainReport, error) {
	if err := require(ctx, s.store, p, domain.PermAuditReadAll, meta, forbidden("Only admins can check the audit log.")); err != nil {
		return domain.AuditChainReport{}, err
	}
	return s.chain.Verify(ctx)
}

// Export calls fn with every entry the filters keep, newest first, for a
// CSV export: the same entries, as List shows them, that the caller's pages
// hold (everything with audit:read-all). The export itself is recorded
// first, with its filters. Errors: EFORBIDDEN without audit:read; EINVALID
// for a filter it does not know.
func (s *AuditService) Export(ctx context.Context, p *domain.Principal, q AuditQuery, meta domain.RequestMeta, fn func(domain.AuditRecord) error) error {
	if err := require(ctx, s.store, p, domain.PermAuditRead, meta, errNoAuditRight); err != nil {
		return err
	}
	f, err := s.filter(q, domain.Page{Page: 1, Limit: auditPageSizes[0]})
	if err != nil {
		return err
	}
	filters := fmt.Sprintf("search=%q action=%q status=%q from=%q to=%q about=%q imageId=%q", q.Search, q.Action, q.Status, q.From, q.To, q.About, q.ImageID)
	if err := record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionAuditExport, Success: true, Reason: truncate(filters, 500)}); err != nil {
		return err
	}
	scope := domain.AuditScopeOf(p)
	return s.store.EachAudit(ctx, scope, f, func(r domain.AuditRecord) error { return fn(shownIn(scope, r)) })
}
