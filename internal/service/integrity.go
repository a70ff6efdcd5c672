package service

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// IntegrityStore is what the checks of stored files need from the database.
type IntegrityStore interface {
	Transactor
	AuditWriter
	Image(ctx context.Context, id string) (domain.Image, error)
	Preview(ctx context.Context, imageID string) (domain.Preview, error)
	Instances(ctx context.Context, imageID, seriesUID, sopUID string) ([]domain.Instance, error)
	ClaimContentCheck(ctx context.Context, lease, recheck time.Duration) (string, error)
	RecordContentCheck(ctx context.Context, imageID, failure string) (bool, error)
	ScrubStatus(ctx context.Context) (domain.ScrubStatus, error)
	ImageIDsAfter(ctx context.Context, after string) ([]string, error)
	// BlobReferenced and PreviewReferenced report whether a record names an object.
	BlobReferenced(ctx context.Context, key string) (bool, error)
	PreviewReferenced(ctx context.Context, key string) (bool, error)
}

// IntegrityService keeps what the content store holds and what the records
// say in agreement, both ways: the scrub reads every stored file and
// preview against its record (S14), and the janitor removes objects that
// no record names (S24). Both walk contents and previews alike, which is
// why the janitor is here rather than with the uploads.
type IntegrityService struct {
	store  IntegrityStore
	blobs  ContentStore
	keys   KeyWrapper
	logger *slog.Logger
	now    Clock
	// orphanAge is how old contents no record names must be before
	// CollectOrphans removes them.
	orphanAge time.Duration
}

// defaultOrphanAge is far above the longest upload (the server reads a
// request for at most two minutes, S25), so contents stored moments before
// their record commits are never taken for orphans, whatever the clocks of
// the instances and the bucket say.
const defaultOrphanAge = time.Hour

// NewIntegrityService wires the checks of stored files; orphanAge is how
// old an object no record names must be before it is removed (an hour
// when zero).
func NewIntegrityService(store IntegrityStore, blobs ContentStore, keys KeyWrapper, logger *slog.Logger, now Clock, orphanAge time.Duration) *IntegrityService {
	if orphanAge <= 0 {
		orphanAge = defaultOrphanAge
	}
	return &IntegrityService{store: store, blobs: blobs, keys: keys, logger: logger, now: now, orphanAge: orphanAge}
}

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
// and, for a study, every instance likewise; it records the result, and when the image has just started
// failing, an integrity_failure entry in the same transaction. It returns
// what is wrong ("" when nothing is).
// Errors: ENOTFOUND (no such image), EUNAVAILABLE (the store cannot be read
// now: no finding).
func (s *IntegrityService) CheckImage(ctx context.Context, id string) (string, error) {
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
	if reason == "" && im.Study != nil {
		if reason, err = s.checkInstances(ctx, im.ID); err != nil {
			return "", err
		}
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

// checkInstances checks a study's instances but the first, which is the
// image's own contents.
func (s *IntegrityService) checkInstances(ctx context.Context, imageID string) (string, error) {
	instances, err := s.store.Instances(ctx, imageID, "", "")
	if err != nil {
		return "", err
	}
	for _, in := range instances {
		if in.ID == imageID {
			continue
		}
		reason, err := s.checkObject(ctx, in.BlobKey, in.WrappedKey, in.ID, in.Size, in.SHA256)
		if err != nil || reason != "" {
			return "instance " + in.SOPUID + ": " + reason, err
		}
	}
	return "", nil
}

func (s *IntegrityService) checkPreview(ctx context.Context, imageID string) (string, error) {
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
func (s *IntegrityService) checkObject(ctx context.Context, blobKey string, wrapped []byte, fileID string, size int64, sum []byte) (string, error) {
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
func (s *IntegrityService) ScrubNext(ctx context.Context) (bool, error) {
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
func (s *IntegrityService) CheckAll(ctx context.Context, progress func(checked int)) ([]domain.ContentFailure, error) {
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
func (s *IntegrityService) ScrubStatus(ctx context.Context, p *domain.Principal, meta domain.RequestMeta) (domain.ScrubStatus, error) {
	if err := require(ctx, s.store, p, domain.PermSystemMonitor, meta, forbidden("Only admins see the state of stored contents.")); err != nil {
		return domain.ScrubStatus{}, err
	}
	return s.store.ScrubStatus(ctx)
}

// CollectOrphans removes contents and previews older than the orphan age
// (an hour) that no record points at: what a crash between the two phases
// of an upload or of storing a preview leaves, and the losing render of two
// at once (S24). It returns how many it removed. Errors: EUNAVAILABLE.
func (s *IntegrityService) CollectOrphans(ctx context.Context) (int, error) {
	removed := 0
	for prefix, referenced := range map[string]func(context.Context, string) (bool, error){
		blobPrefix: s.store.BlobReferenced, previewPrefix: s.store.PreviewReferenced,
	} {
		err := s.blobs.Walk(ctx, prefix, s.now().Add(-s.orphanAge), func(key string) error {
			ref, err := referenced(ctx, key)
			if err != nil || ref {
				return err
			}
			if err := s.blobs.Delete(ctx, key); err != nil {
				return err
			}
			removed++
			return nil
		})
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}
