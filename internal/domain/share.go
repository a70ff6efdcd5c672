package domain

import "time"

// Share limits (api.md "Sharing", S4).
const (
	ShareCodeDigits   = 6
	ShareMaxCodeTries = 5
)

// Share statuses as api.md names them; a share voided by wrong codes is
// "voided" (docs/api.md says why it is not folded into another status).
const (
	SharePending  = "pending"
	ShareVerified = "verified"
	ShareExpired  = "expired"
	ShareVoided   = "voided"
	ShareRevoked  = "revoked"
)

// Share is one image shared with one recipient.
type Share struct {
	ID         string
	ImageID    string
	Caption    string
	SharedBy   Person
	SharedWith Person
	CreatedAt  time.Time
	ExpiresAt  time.Time
	VerifiedAt *time.Time
	VoidedAt   *time.Time
	RevokedAt  *time.Time
}

// Status says where the share stands at now.
func (s Share) Status(now time.Time) string {
	switch {
	case s.RevokedAt != nil:
		return ShareRevoked
	case s.VoidedAt != nil:
		return ShareVoided
	case !now.Before(s.ExpiresAt):
		return ShareExpired
	case s.VerifiedAt != nil:
		return ShareVerified
	default:
		return SharePending
	}
}

// Opens reports whether the share lets its recipient see the contents at now.
func (s Share) Opens(now time.Time) bool { return s.Status(now) == ShareVerified }
