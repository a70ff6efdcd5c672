package domain

import "time"

// Limits of personal access tokens (api.md "Personal access tokens").
const (
	AccessTokenNameMax     = 100
	AccessTokenMinDays     = 1
	AccessTokenMaxDays     = 365
	AccessTokenMaxLive     = 20
	AccessTokenSecretBytes = 32
	// AccessTokenPrefix begins every secret, so that it cannot be taken for
	// an access token (a JWT) and secret scanners can find it where it leaked.
	AccessTokenPrefix = "msp_"
)

// AccessToken is a personal access token as its owner sees it: never its
// secret, which is shown once, when it is made.
type AccessToken struct {
	ID         string
	UserID     string
	Name       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}
