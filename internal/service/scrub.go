package service

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// The scrub's pace: downloads check each chunk, not the whole file's
// SHA-256, so the scrub reads every stored file whole now and then (S14).
const (
	// scrubLease is how long a claimed image is left to its scrubber; one
	// that stopped half-way is taken again after it.
	scrubLease = 10 * time.Minute
	// scrubRecheck is how often an image is read again at most.
	scrubRecheck = 24 * time.Hour
)

// CheckImage reads an image's stored contents whole, checking every chunk,
// the length and the SHA-256 against its record, and its stored preview
// likewise; it records the result, and when the image has just started
// failing, an integrity_failure entry in the same transaction. It returns
// what is wrong ("" when nothing is).
// Errors: ENOTFOUND (no such image), EUNAVAILABLE (the store cannot be read
// now: no finding).
func (s *ImageService) CheckImage(ctx context.Context, id string) (string, error) {
	im, err := s.store.Image(ctx, id)
	if err != nil {
		return "", err
	}
	reason, err := s.checkObject(ctx, im.BlobKey, im.WrappedKey, im.ID, im.Size, im.SHA256)
	if err != nil {
		return "", err
	}
	if reason != "" {
		reason = "contents: " + reason
	} else if reason, err = s.checkPreview(ctx, im.ID); err != nil {
		return "", err
	}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		newly, err := s.store.RecordContentCheck(ctx, im.ID, reason)
		if err != nil || !newly {
			return err
		}
		return record(ctx, s.store, domain.RequestMeta{}, Event{Action: domain.ActionIntegrityFailure,
			Table: domain.TableImages, RecordID: im.ID, Reason: reason})
	})
	if reason != "" {
		s.logger.Error("stored contents failed their check", "image", im.ID, "reason", reason)
	}
	return reason, err
}

func (s *ImageService) checkPreview(ctx context.Context, imageID string) (string, error) {
	pv, err := s.store.Preview(ctx, imageID)
	if domain.ErrorKind(err) == domain.ENOTFOUND || (err == nil && pv.State != domain.PreviewReady) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	reason, err := s.checkObject(ctx, pv.BlobKey, pv.WrappedKey, pv.FileID(), pv.Size, pv.SHA256)
	if reason != "" {
		reason = "preview: " + reason
	}
	return reason, err
}

// checkObject reads one stored object whole and says what is wrong with it.
func (s *ImageService) checkObject(ctx context.Context, blobKey string, wrapped []byte, fileID string, size int64, sum []byte) (string, error) {
	key, err := s.keys.Unwrap(wrapped, fileID)
	if err != nil {
		return finding(ctx, err)
	}
	rc, err := openDecrypting(ctx, s.blobs, blobKey, key, fileID)
	if err != nil {
		return finding(ctx, err)
	}
	defer func() { _ = rc.Close() }() // read only: nothing to lose
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return finding(ctx, err)
	}
	if n != size {
		return fmt.Sprintf("%d bytes, the record says %d", n, size), nil
	}
	if !hmac.Equal(h.Sum(nil), sum) {
		return "the SHA-256 differs from the record", nil
	}
	return "", nil
}

// finding turns a failure to read an object into what is wrong with it,
// or, when the fault is not the object's (a store that is down, a caller
// that gave up), the error.
func finding(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var de *domain.Error
	switch {
	case !errors.As(err, &de) || de.Kind == domain.EUNAVAILABLE:
		return "", err
	case de.Kind == domain.ENOTFOUND:
		return "missing from the store", nil
	case de.Err != nil:
		return de.Err.Error(), nil
	}
	return de.Message, nil
}

// ScrubNext checks the image due next (never checked, or checked longest
// ago and more than a day ago), claiming it first so that no other
// instance checks it at the same time. It reports whether one was due.
// Errors: EUNAVAILABLE.
func (s *ImageService) ScrubNext(ctx context.Context) (bool, error) {
	id, err := s.store.ClaimContentCheck(ctx, scrubLease, scrubRecheck)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := s.CheckImage(ctx, id); err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return true, err
	}
	return true, nil
}

// CheckAll checks every stored image once (CheckImage), in id order,
// calling progress after each, and returns those found damaged.
// Errors: EUNAVAILABLE, ctx's.
func (s *ImageService) CheckAll(ctx context.Context, progress func(checked int)) ([]domain.ContentFailure, error) {
	var damaged []domain.ContentFailure
	checked, after := 0, ""
	for {
		ids, err := s.store.ImageIDsAfter(ctx, after)
		if err != nil || len(ids) == 0 {
			return damaged, err
		}
		for _, id := range ids {
			reason, err := s.CheckImage(ctx, id)
			if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
				return damaged, err
			}
			if reason != "" {
				damaged = append(damaged, domain.ContentFailure{ImageID: id, Reason: reason})
			}
			checked++
			progress(checked)
		}
		after = ids[len(ids)-1]
	}
}

// ScrubStatus reports the checks of stored contents: how many images were
// checked, the latest check, and the images whose last check failed (for
// the health panel). Errors: EFORBIDDEN (without system:monitor), EUNAVAILABLE.
func (s *ImageService) ScrubStatus(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (domain.ScrubStatus, error) {
	if err := require(ctx, s.store, p, domain.PermSystemMonitor, meta, forbidden("Only admins see the state of stored contents.")); err != nil {
		return domain.ScrubStatus{}, err
	}
	return s.store.ScrubStatus(ctx)
}
