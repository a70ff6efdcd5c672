package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountAudit(r chi.Router) {
	r.Get("/audit/logs", a.listAudit)
	r.Get("/audit/verify", a.verifyAudit)
}

func (a *api) verifyAudit(w http.ResponseWriter, r *http.Request) {
	report, err := a.Audit.Verify(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	var broken *int64
	if !report.OK {
		broken = &report.FirstBrokenID
	}
	writeOK(w, http.StatusOK, "", map[string]any{"ok": report.OK, "checked": report.Checked, "firstBrokenId": broken})
}

// auditUserJSON names who acted.
type auditUserJSON struct {
	Firstname string `json:"firstname"`
	Lastname  string `json:"lastname"`
	Username  string `json:"username"`
}

// auditEntryJSON is an audit entry as api.md spells it.
type auditEntryJSON struct {
	ID         int64          `json:"id"`
	CreateAt   time.Time      `json:"createAt"`
	User       *auditUserJSON `json:"user"` // null for anonymous events
	ActionType string         `json:"actiontype"`
	TableName  string         `json:"tablename"`
	RecordID   string         `json:"recordId"`
	IPAddress  string         `json:"ipaddress"`
	UserAgent  string         `json:"userAgent"`
	Status     string         `json:"status"`
	Reason     string         `json:"reason"`
}

func toAuditEntryJSON(r domain.AuditRecord) auditEntryJSON {
	out := auditEntryJSON{ID: r.ID, CreateAt: r.CreatedAt, ActionType: string(r.Action), TableName: string(r.Table),
		RecordID: r.RecordID, IPAddress: r.IP, UserAgent: r.UserAgent, Status: "failure", Reason: r.Reason}
	if r.Success {
		out.Status = "success"
	}
	if r.Actor.ID != "" {
		out.User = &auditUserJSON{Firstname: r.Actor.Firstname, Lastname: r.Actor.Lastname, Username: r.Actor.Username}
	}
	return out
}

func (a *api) listAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := service.AuditQuery{Search: q.Get("search"), Action: q.Get("action"), Status: q.Get("status"), From: q.Get("from"), To: q.Get("to")}
	writePage(w, r, func(page domain.Page) ([]domain.AuditRecord, domain.PageOf, error) {
		return a.Audit.List(r.Context(), principal(r), query, page, meta(r))
	}, toAuditEntryJSON)
}
