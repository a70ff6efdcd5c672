package service

import (
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/medishare/medishare/internal/domain"
)

// AccessTokenTTL is how long an access token lives (S5).
const AccessTokenTTL = 15 * time.Minute

const tokenAudience = "medishare-api"

// Tokens signs and checks access tokens: HS256 only, with issuer, audience
// and expiry required. Each names its session, which is checked on every
// request, so ending the session ends the token at once.
type Tokens struct {
	secret []byte
	issuer string
	now    Clock
}

// NewTokens returns a signer for secret, naming issuer (the public URL).
func NewTokens(secret []byte, issuer string, now Clock) *Tokens {
	return &Tokens{secret: secret, issuer: issuer, now: now}
}

type accessClaims struct {
	SessionID string `json:"sid"`
	Role      string `json:"role"`
	jwt.RegisteredClaims
}

// Issue returns a signed access token for a user's session.
func (t *Tokens) Issue(userID, sessionID, role string) (string, error) {
	now := t.now()
	claims := accessClaims{
		SessionID: sessionID,
		Role:      role, // informational: the server reads the role from the database
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    t.issuer,
			Subject:   userID,
			Audience:  jwt.ClaimStrings{tokenAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(AccessTokenTTL)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
}

// Parse checks a token and returns its user and session ids.
// Errors: EUNAUTHENTICATED.
func (t *Tokens) Parse(token string) (userID, sessionID string, err error) {
	var claims accessClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithAudience(tokenAudience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(t.now),
	)
	if err != nil || claims.SessionID == "" || claims.Subject == "" {
		return "", "", errInvalidToken
	}
	return claims.Subject, claims.SessionID, nil
}

var errInvalidToken = &domain.Error{Kind: domain.EUNAUTHENTICATED, Message: "Invalid or expired token", Code: "Invalid or expired token"}
