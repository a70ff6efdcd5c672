package service

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// AccessTokenStore is what personal access tokens need from the database.
type AccessTokenStore interface {
	Transactor
	AuditWriter
	LockUserAccessTokens(ctx context.Context, userID string) error
	CountLiveAccessTokens(ctx context.Context, userID string, now time.Time) (int, error)
	CreateAccessToken(ctx context.Context, userID, name string, tokenHash []byte, created, expires time.Time) (domain.AccessToken, error)
	LiveAccessTokens(ctx context.Context, userID string, now time.Time) ([]domain.AccessToken, error)
	RevokeAccessToken(ctx context.Context, userID, id, reason string, now time.Time) (domain.AccessToken, error)
	AccessTokenPrincipal(ctx context.Context, tokenHash []byte, now time.Time) (domain.Principal, error)
	TouchAccessToken(ctx context.Context, id string, now time.Time) (bool, error)
}

// AccessTokenService makes, lists and revokes personal access tokens, and
// authenticates the machines that present them (api.md "Personal access
// tokens").
type AccessTokenService struct {
	store   AccessTokenStore
	secrets SecretHasher
	now     Clock
}

// NewAccessTokenService wires the personal access token use cases.
func NewAccessTokenService(store AccessTokenStore, secrets SecretHasher, now Clock) *AccessTokenService {
	return &AccessTokenService{store: store, secrets: secrets, now: now}
}

// NewAccessToken is what a person asks for: a name and a lifetime in days
// (nil when the request gave none).
type NewAccessToken struct {
	Name          string
	ExpiresInDays *int
}

// CreatedAccessToken is a new token with its secret, which is never
// available again.
type CreatedAccessToken struct {
	domain.AccessToken
	Secret string
}

var (
	errTokenNotFound = domain.Errorf(domain.ENOTFOUND, "Token not found.")
	// A token acts as its owner under /dicomweb only; it never reaches the
	// routes that make or end tokens, and this keeps it so should it ever
	// be let further.
	errTokenByToken = forbidden("A personal access token cannot manage tokens. Please sign in.")
)

// Create makes a token for the caller and returns it with its secret.
// Errors: EVALIDATION (the name, the lifetime, the cap of live tokens),
// EFORBIDDEN (the caller is itself a token).
func (s *AccessTokenService) Create(ctx context.Context, p *domain.Principal, in NewAccessToken, meta domain.RequestMeta) (CreatedAccessToken, error) {
	if p.AccessTokenID != "" {
		return CreatedAccessToken{}, refuse(ctx, s.store, meta, Event{Actor: p.User.ID, Table: domain.TableAccessTokens, Reason: "token create: by a token"}, errTokenByToken)
	}
	name, err := validateNewAccessToken(in)
	if err != nil {
		return CreatedAccessToken{}, err
	}
	secret := domain.AccessTokenPrefix + secure.RandomToken(domain.AccessTokenSecretBytes)
	created := s.now().UTC()
	expires := created.Add(time.Duration(*in.ExpiresInDays) * 24 * time.Hour)
	var out CreatedAccessToken
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.LockUserAccessTokens(ctx, p.User.ID); err != nil {
			return err
		}
		live, err := s.store.CountLiveAccessTokens(ctx, p.User.ID, created)
		if err != nil {
			return err
		}
		if live >= domain.AccessTokenMaxLive {
			return domain.ValidationError(fmt.Sprintf("You already have %d active tokens, the most you may hold. Please revoke one you no longer use.", domain.AccessTokenMaxLive))
		}
		t, err := s.store.CreateAccessToken(ctx, p.User.ID, name, s.secrets.TokenHash(secret), created, expires)
		if err != nil {
			return err
		}
		out = CreatedAccessToken{AccessToken: t, Secret: secret}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionTokenCreate, Table: domain.TableAccessTokens, RecordID: t.ID,
			Success: true, Reason: fmt.Sprintf("%q, expires %s", name, expires.Format(time.RFC3339))})
	})
	return out, err
}

// validateNewAccessToken checks a request and returns the trimmed name.
func validateNewAccessToken(in NewAccessToken) (string, error) {
	var errs fieldErrors
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		errs.add("name", "Please give the token a name.")
	case utf8.RuneCountInString(name) > domain.AccessTokenNameMax:
		errs.add("name", "The name must be at most %d characters.", domain.AccessTokenNameMax)
	case strings.ContainsFunc(name, unicode.IsControl):
		errs.add("name", "The name must be one line of text.")
	}
	if in.ExpiresInDays == nil || *in.ExpiresInDays < domain.AccessTokenMinDays || *in.ExpiresInDays > domain.AccessTokenMaxDays {
		errs.add("expiresInDays", "The lifetime must be a whole number of days from %d to %d.", domain.AccessTokenMinDays, domain.AccessTokenMaxDays)
	}
	if len(errs) == 1 {
		return name, domain.ValidationError(errs[0].Message, errs...)
	}
	return name, errs.err()
}

// List returns the caller's live tokens (neither revoked nor expired),
// newest first, without their secrets.
func (s *AccessTokenService) List(ctx context.Context, p *domain.Principal) ([]domain.AccessToken, error) {
	return s.store.LiveAccessTokens(ctx, p.User.ID, s.now())
}

// Revoke ends one of the caller's tokens at once; revoking one already
// ended changes nothing. Someone else's token, or an unknown id, is refused
// as not found, and the refusal recorded. Errors: ENOTFOUND, EFORBIDDEN
// (the caller is itself a token).
func (s *AccessTokenService) Revoke(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	denied := Event{Actor: p.User.ID, Table: domain.TableAccessTokens, RecordID: auditID(id)}
	if p.AccessTokenID != "" {
		denied.Reason = "token revoke: by a token"
		return refuse(ctx, s.store, meta, denied, errTokenByToken)
	}
	err := s.store.InTx(ctx, func(ctx context.Context) error {
		t, err := s.store.RevokeAccessToken(ctx, p.User.ID, id, "revoked by its owner", s.now())
		if err != nil {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionTokenRevoke, Table: domain.TableAccessTokens, RecordID: t.ID, Success: true})
	})
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		// Outside the transaction, which the refusal rolls back.
		denied.Reason = "token revoke: not the owner"
		return refuse(ctx, s.store, meta, denied, errTokenNotFound)
	}
	return err
}

// IsAccessToken reports whether a credential has the form of a personal
// access token rather than of a session's access token.
func IsAccessToken(credential string) bool {
	return strings.HasPrefix(credential, domain.AccessTokenPrefix)
}

// Authenticate turns a token's secret into its owner, as a session's
// Authenticate does an access token: the owner's current role and
// permissions, checked on every call. A revoked, expired or unknown token,
// or one whose owner is inactive or deleted, gets the answer of a bad
// access token. A use is recorded (last_used_at and a token_use audit
// entry) at most once a minute per token. Errors: EUNAUTHENTICATED.
func (s *AccessTokenService) Authenticate(ctx context.Context, secret string, meta domain.RequestMeta) (*domain.Principal, error) {
	if !IsAccessToken(secret) {
		return nil, errInvalidToken
	}
	now := s.now()
	p, err := s.store.AccessTokenPrincipal(ctx, s.secrets.TokenHash(secret), now)
	if err != nil {
		return nil, notFound(err, errInvalidToken)
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		touched, err := s.store.TouchAccessToken(ctx, p.AccessTokenID, now)
		if err != nil || !touched {
			return err
		}
		return record(ctx, s.store, meta, Event{Actor: p.User.ID, Action: domain.ActionTokenUse, Table: domain.TableAccessTokens, RecordID: p.AccessTokenID, Success: true})
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}
