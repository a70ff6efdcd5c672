package service

import (
	"context"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// PasskeyStore is what passkeys need from the database.
type PasskeyStore interface {
	Passkeys(ctx context.Context, userID string) ([]domain.StoredPasskey, error)
	AddPasskey(ctx context.Context, userID, name string, credentialID, credential []byte, now time.Time) (domain.StoredPasskey, error)
	RenamePasskey(ctx context.Context, userID, id, name string) (domain.StoredPasskey, error)
	RemovePasskey(ctx context.Context, userID, id string) error
	UsePasskey(ctx context.Context, userID string, credentialID, credential []byte, now time.Time) error
	PutPasskeyRegistration(ctx context.Context, userID string, session []byte, expires time.Time) error
	TakePasskeyRegistration(ctx context.Context, userID string, now time.Time) ([]byte, error)
}

// Passkeys runs WebAuthn ceremonies (a relying party): the service keeps
// their session data in the database between begin and finish, so either
// may reach any instance.
type Passkeys interface{}
