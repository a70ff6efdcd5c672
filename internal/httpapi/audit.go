package httpapi

import (
	"encoding/csv"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountAudit(r chi.Router) {
	r.Get("/audit/logs", a.listAudit)
	r.Get("/audit/verify", a.verifyAudit)
	r.Get("/audit/logs/export", a.exportAudit)
}

// auditCSVHeader names the columns of an export: the entry's fields.
var auditCSVHeader = []string{"id", "createAt", "firstname", "lastname", "username", "actiontype", "tablename", "recordId", "ipaddress", "userAgent", "status", "reason"}

// exportAudit streams the audit log as CSV, row by row as the database
// gives them. Once rows are flowing a failure can no longer change the
// status, so it breaks the transfer: a cut file is never taken for a whole one.
func (a *api) exportAudit(w http.ResponseWriter, r *http.Request) {
	query := auditQueryOf(r)
	out := csv.NewWriter(w)
	started := false
	start := func() { // the answer begins: its headers and the header row
		started = true
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="audit-log.csv"`)
		_ = out.Write(auditCSVHeader)
	}
	rows := 0
	err := a.Audit.Export(r.Context(), principal(r), query, meta(r), func(e domain.AuditRecord) error {
		if !started {
			start()
		}
		j := toAuditEntryJSON(e)
		var user auditUserJSON
		if j.User != nil {
			user = *j.User
		}
		record := []string{strconv.FormatInt(j.ID, 10), j.CreateAt.Format(time.RFC3339Nano), user.Firstname, user.Lastname, user.Username,
			j.ActionType, j.TableName, j.RecordID, j.IPAddress, j.UserAgent, j.Status, j.Reason}
		for i := range record {
			record[i] = neutralizeFormula(record[i])
		}
		if err := out.Write(record); err != nil {
			return err
		}
		if rows++; rows%500 == 0 {
			out.Flush()
			return out.Error()
		}
		return nil
	})
	switch {
	case err != nil && !started:
		writeError(w, r, err)
	case err != nil:
		slog.Error("audit export broken off", "request_id", requestID(r.Context()), "err", err)
		panic(http.ErrAbortHandler)
	default:
		if !started { // nothing matched: the header row alone
			start()
		}
		out.Flush()
	}
}

// neutralizeFormula keeps a spreadsheet from running a cell as a formula:
// one that begins with =, +, -, @, a tab or a carriage return is prefixed
// with a quote (api.md, Audit).
func neutralizeFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (a *api) verifyAudit(w http.ResponseWriter, r *http.Request) {
	report, err := a.Audit.Verify(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", auditCheckJSON(report))
}

// auditCheckJSON is a check of the audit chain (the AuditChainCheck schema).
func auditCheckJSON(r domain.AuditChainReport) map[string]any {
	out := map[string]any{"ok": r.OK, "checked": r.Checked, "checkedAt": nil, "firstBrokenId": nil, "problem": nil}
	if !r.CheckedAt.IsZero() {
		out["checkedAt"] = r.CheckedAt.UTC()
	}
	if !r.OK && !r.CheckedAt.IsZero() {
		out["firstBrokenId"], out["problem"] = r.FirstBrokenID, r.Problem
	}
	return out
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
	query := auditQueryOf(r)
	writePage(w, r, func(page domain.Page) ([]domain.AuditRecord, domain.PageOf, error) {
		return a.Audit.List(r.Context(), principal(r), query, page, meta(r))
	}, toAuditEntryJSON)
}

// auditQueryOf reads the audit log's filters from the query string.
func auditQueryOf(r *http.Request) service.AuditQuery {
	q := r.URL.Query()
	return service.AuditQuery{Search: q.Get("search"), Action: q.Get("action"), Status: q.Get("status"), From: q.Get("from"), To: q.Get("to"),
		About: q.Get("about"), ImageID: q.Get("imageId")}
}
