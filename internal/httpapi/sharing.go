package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountSharing(r chi.Router) {
	r.Post("/sharing/request", a.shareImage)
	r.Post("/sharing/verify", a.verifyShare)
	r.Delete("/sharing/{id}", a.revokeShare)
	r.Post("/sharing/{id}/extend", a.extendShare)
	r.Get("/sharing/sent", a.listSentShares)
	r.Get("/sharing/limits", a.shareLimits)
}

// shareJSON is a share as its sharer sees it (api.md "Sharing").
type shareJSON struct {
	ID         string     `json:"id"`
	Image      shareImage `json:"image"`
	SharedWith personJSON `json:"sharedWith"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	VerifiedAt *time.Time `json:"verifiedAt"`
}

type shareImage struct {
	ID      string `json:"id"`
	Caption string `json:"caption"`
}

func toShareJSON(sh domain.Share, now time.Time) shareJSON {
	return shareJSON{
		ID: sh.ID, Image: shareImage{ID: sh.ImageID, Caption: sh.Caption}, SharedWith: personJSON(sh.SharedWith),
		Status: sh.Status(now), CreatedAt: sh.CreatedAt.UTC(), ExpiresAt: sh.ExpiresAt.UTC(), VerifiedAt: utcPtr(sh.VerifiedAt),
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

type shareRequest struct {
	ImageID        string `json:"imagemetadataId"`
	RecipientID    string `json:"createdfor"`
	ExpiresInHours *int   `json:"expiresInHours"`
}

func (a *api) shareImage(w http.ResponseWriter, r *http.Request) {
	var in shareRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	sh, err := a.Sharing.Share(r.Context(), principal(r), service.ShareRequest{
		ImageID: in.ImageID, RecipientID: in.RecipientID, ExpiresInHours: in.ExpiresInHours,
	}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Image shared successfully.", map[string]any{"id": sh.ID, "expiresAt": sh.ExpiresAt.UTC()})
}

type verifyShareRequest struct {
	ShareID string `json:"sharingRequestId"`
	Code    string `json:"verificationCode"`
}

func (a *api) verifyShare(w http.ResponseWriter, r *http.Request) {
	var in verifyShareRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.Sharing.Verify(r.Context(), principal(r), in.ShareID, in.Code, meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Image verified successfully.", nil)
}

func (a *api) revokeShare(w http.ResponseWriter, r *http.Request) {
	if err := a.Sharing.Revoke(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Share revoked.", nil)
}

type extendShareRequest struct {
	Hours int `json:"hours"`
}

func (a *api) extendShare(w http.ResponseWriter, r *http.Request) {
	var in extendShareRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	sh, err := a.Sharing.Extend(r.Context(), principal(r), chi.URLParam(r, "id"), in.Hours, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Share extended.", toShareJSON(sh, a.Now()))
}

func (a *api) listSentShares(w http.ResponseWriter, r *http.Request) {
	now := a.Now()
	writePage(w, r, func(page domain.Page) ([]domain.Share, domain.PageOf, error) {
		return a.Sharing.Sent(r.Context(), principal(r), page, meta(r))
	}, func(sh domain.Share) shareJSON { return toShareJSON(sh, now) })
}

// shareLimits answers the lifetimes the Share dialog may offer: the
// settings' two share lifetimes, for those who may share (not only admins).
func (a *api) shareLimits(w http.ResponseWriter, r *http.Request) {
	l, err := a.Sharing.Limits(r.Context(), principal(r), meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", map[string]int{"shareLifetimeDefaultHours": l.DefaultHours, "shareLifetimeMaxHours": l.MaxHours})
}
