package service

import (
	"context"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// KeyStore finds what is still under another master key than the current
// one, a batch at a time (an empty batch when none is left), and writes
// it back under the current one.
type KeyStore interface {
	KeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.WrappedKey, error)
	SetWrappedKey(ctx context.Context, imageID string, wrapped, keyID []byte) error
	InstanceKeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.WrappedKey, error)
	SetInstanceWrappedKey(ctx context.Context, instanceID string, wrapped, keyID []byte) error
	PreviewKeysNotUnder(ctx context.Context, currentKeyID []byte) ([]domain.Preview, error)
	SetPreviewWrappedKey(ctx context.Context, imageID string, wrapped, keyID []byte) error
	MessagesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error)
	SetMessageSealed(ctx context.Context, id string, sealed []byte) error
	AnalysesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error)
	SetAnalysisSealed(ctx context.Context, id string, sealed []byte) error
	MailNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error)
	SetMailSealed(ctx context.Context, id string, sealed []byte) error
	StudiesNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error)
	SetStudySealed(ctx context.Context, imageID string, sealed []byte) error
	TOTPNotUnder(ctx context.Context, keyID []byte) ([]domain.SealedText, error)
	SetTOTPSealed(ctx context.Context, userID string, sealed []byte) error
	AuditKeySealed(ctx context.Context) ([]byte, error)
	SetAuditKeySealed(ctx context.Context, sealed []byte) error
}

// KeyRotationService moves what the previous master key protects to the
// current one (`medishare keys rotate`): every file and preview key is
// re-wrapped, and every message, analysis, queued mail, authenticator
// secret and the audit chain's key re-sealed; file contents are not touched, and the audit
// chain's hashes stay as they are (its key does not change). It may be run again: what is already under
// the current key is not found again.
type KeyRotationService struct {
	store KeyStore
	keys  *secure.Envelope   // the current master key's
	texts *secure.TextSealer // the current master key's
}

// NewKeyRotationService rotates to the master key of keys and texts.
func NewKeyRotationService(store KeyStore, keys *secure.Envelope, texts *secure.TextSealer) *KeyRotationService {
	return &KeyRotationService{store: store, keys: keys, texts: texts}
}

// Rotated counts what a rotation moved to the current master key.
type Rotated struct {
	FileKeys, InstanceKeys, PreviewKeys int
	Messages, Analyses, Mails, Studies  int
	// TOTPSecrets are authenticator secrets.
	TOTPSecrets int
}

// Rotate moves everything under oldMaster, the previous master key, to the
// current one. Errors: EINVALID (oldMaster is not a master key, or a record
// is under neither key; it is named), EUNAVAILABLE.
func (s *KeyRotationService) Rotate(ctx context.Context, oldMaster []byte) (Rotated, error) {
	var done Rotated
	old, err := secure.NewEnvelope(oldMaster)
	if err != nil {
		return done, domain.Errorf(domain.EINVALID, "the previous master key: %v", err)
	}
	oldTexts, err := secure.NewTextSealer(oldMaster)
	if err != nil {
		return done, domain.Errorf(domain.EINVALID, "the previous master key: %v", err)
	}
	current := s.keys.KeyID()
	done.FileKeys, err = rewrapAll(ctx, s.store.KeysNotUnder, current, func(k domain.WrappedKey) error {
		wrapped, err := s.keys.Rewrap(old, k.Wrapped, k.ImageID)
		if err != nil {
			return domain.Errorf(domain.EINVALID, "image %s: its key is wrapped by neither the old nor the current master key", k.ImageID)
		}
		return s.store.SetWrappedKey(ctx, k.ImageID, wrapped, current)
	})
	if err != nil {
		return done, err
	}
	done.InstanceKeys, err = rewrapAll(ctx, s.store.InstanceKeysNotUnder, current, func(k domain.WrappedKey) error {
		wrapped, err := s.keys.Rewrap(old, k.Wrapped, k.ImageID)
		if err != nil {
			return domain.Errorf(domain.EINVALID, "study instance %s: its key is wrapped by neither the old nor the current master key", k.ImageID)
		}
		return s.store.SetInstanceWrappedKey(ctx, k.ImageID, wrapped, current)
	})
	if err != nil {
		return done, err
	}
	done.PreviewKeys, err = rewrapAll(ctx, s.store.PreviewKeysNotUnder, current, func(pv domain.Preview) error {
		wrapped, err := s.keys.Rewrap(old, pv.WrappedKey, pv.FileID())
		if err != nil {
			return domain.Errorf(domain.EINVALID, "preview of image %s: its key is wrapped by neither the old nor the current master key", pv.ImageID)
		}
		return s.store.SetPreviewWrappedKey(ctx, pv.ImageID, wrapped, current)
	})
	if err != nil {
		return done, err
	}
	for _, texts := range []struct {
		what  string
		count *int
		list  func(context.Context, []byte) ([]domain.SealedText, error)
		set   func(context.Context, string, []byte) error
		bind  func(id string) string // the record id the text is sealed to
	}{
		{"message", &done.Messages, s.store.MessagesNotUnder, s.store.SetMessageSealed, sameID},
		{"analysis", &done.Analyses, s.store.AnalysesNotUnder, s.store.SetAnalysisSealed, sameID},
		{"queued mail", &done.Mails, s.store.MailNotUnder, s.store.SetMailSealed, sameID},
		{"study", &done.Studies, s.store.StudiesNotUnder, s.store.SetStudySealed, studySealID},
		{"authenticator secret of user", &done.TOTPSecrets, s.store.TOTPNotUnder, s.store.SetTOTPSealed, domain.TOTPSealID},
	} {
		*texts.count, err = rewrapAll(ctx, texts.list, s.texts.KeyID(), func(t domain.SealedText) error {
			sealed, err := s.texts.Reseal(oldTexts, texts.bind(t.ID), t.Sealed)
			if err != nil {
				return domain.Errorf(domain.EINVALID, "%s %s: sealed by neither the old nor the current master key", texts.what, t.ID)
			}
			return texts.set(ctx, t.ID, sealed)
		})
		if err != nil {
			return done, err
		}
	}
	sealed, err := s.store.AuditKeySealed(ctx)
	switch {
	case domain.ErrorKind(err) == domain.ENOTFOUND:
		return done, nil
	case err != nil:
		return done, err
	}
	if sealed, err = s.texts.Reseal(oldTexts, auditKeyRecord, sealed); err != nil {
		return done, domain.Errorf(domain.EINVALID, "the audit chain's key: sealed by neither the old nor the current master key")
	}
	return done, s.store.SetAuditKeySealed(ctx, sealed)
}

func sameID(id string) string { return id }

// rewrapAll moves, a batch at a time, every record list still finds under
// another key than current, and counts them.
func rewrapAll[T any](ctx context.Context, list func(context.Context, []byte) ([]T, error), current []byte, move func(T) error) (int, error) {
	done := 0
	for {
		batch, err := list(ctx, current)
		if err != nil || len(batch) == 0 {
			return done, err
		}
		for _, record := range batch {
			if err := move(record); err != nil {
				return done, err
			}
			done++
		}
	}
}
