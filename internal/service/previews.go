package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
)

// previewPrefix starts the keys of stored previews; each render gets a key
// of its own, so two first views at once never write the same object.
const previewPrefix = "previews/"

// PreviewMaxSide bounds preview renderings.
const PreviewMaxSide = 1024

// maxStoredPreview bounds what a preview record may make us read: a PNG of
// at most 1024 px a side is far smaller.
const maxStoredPreview = 16 << 20

// PreviewStore is what previews need from the database.
type PreviewStore interface {
	Preview(ctx context.Context, imageID string) (domain.Preview, error)
	// CreatePreview records a preview unless one is recorded (false then).
	CreatePreview(ctx context.Context, p domain.Preview) (bool, error)
}

// PreviewService renders an image's preview on its first request and
// keeps it, encrypted, for the next ones. Access to it is the image's
// contents' (ImageService.Contents).
type PreviewService struct {
	store    PreviewStore
	images   *ImageService
	blobs    ContentStore
	keys     KeyWrapper
	logger   *slog.Logger
	renderer *medimg.Previewer // renders share its memory budget
}

// NewPreviewService wires previews; renderer renders them within the
// process's memory budget for them.
func NewPreviewService(store PreviewStore, images *ImageService, blobs ContentStore, keys KeyWrapper, logger *slog.Logger, renderer *medimg.Previewer) *PreviewService {
	return &PreviewService{store: store, images: images, blobs: blobs, keys: keys, logger: logger, renderer: renderer}
}

// PreviewPNG is an image's preview, ready to send. Its SHA-256 (the ETag)
// comes from the record, and the stored PNG is fetched and decrypted only
// by Bytes, so a revalidation costs no decryption.
type PreviewPNG struct {
	SHA256 []byte
	png    []byte // set when rendered by this request
	load   func(context.Context) ([]byte, error)
}

// Bytes returns the PNG, checked whole against its SHA-256 before any of
// it is returned (it is small), so a damaged preview fails cleanly.
// Errors: EINTERNAL (damaged), EUNAVAILABLE.
func (p *PreviewPNG) Bytes(ctx context.Context) ([]byte, error) {
	if p.png != nil {
		return p.png, nil
	}
	return p.load(ctx)
}

// previewWait bounds how long a preview waits for memory: less than the
// server's write timeout, so no render starts for an answer that can no
// longer be sent.
const previewWait = time.Minute

// Preview returns a PNG rendering of an image, after the same access check
// and `preview` audit entry as the contents (S19). It is rendered once, on
// the first request, and kept encrypted in the content store beside the
// image under a key of its own; "Preview not available." is remembered too.
// Decoding can take hundreds of MiB, so renders wait their turn for a
// memory budget the process shares (medimg.Previewer).
// Errors: ENOTFOUND (also "Preview not available."), EFORBIDDEN, EINTERNAL
// (damaged), EUNAVAILABLE (also "The service is busy. Please try again."
// when the wait for memory runs out).
func (s *PreviewService) Preview(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (*PreviewPNG, error) {
	c, err := s.images.Contents(ctx, p, id, domain.ActionPreview, meta)
	if err != nil {
		return nil, err
	}
	pv, err := s.store.Preview(ctx, c.Image.ID)
	switch {
	case err == nil && pv.State == domain.PreviewNone:
		return nil, medimg.ErrNoPreview
	case err == nil:
		return &PreviewPNG{SHA256: pv.SHA256, load: func(ctx context.Context) ([]byte, error) { return s.loadPreview(ctx, pv) }}, nil
	case domain.ErrorKind(err) != domain.ENOTFOUND:
		return nil, err
	}
	png, err := s.render(ctx, c)
	if errors.Is(err, medimg.ErrNoPreview) {
		if _, err := s.store.CreatePreview(ctx, domain.Preview{ImageID: c.Image.ID, State: domain.PreviewNone}); err != nil {
			s.logger.Warn("could not remember that an image has no preview", "image", c.Image.ID, "err", err)
		}
		return nil, medimg.ErrNoPreview
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(png)
	// The render is paid for: keep it even if the caller has gone.
	keepCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	s.keepPreview(keepCtx, c.Image.ID, png, sum[:])
	return &PreviewPNG{SHA256: sum[:], png: png}, nil
}

// Render renders a preview of contents whose access is recorded (an
// instance of a study, say) without keeping it.
func (s *PreviewService) Render(ctx context.Context, c *Contents) ([]byte, error) {
	return s.render(ctx, c)
}

// render renders the preview of contents the caller may read. The
// renderer reads the contents twice (the header, which sets the memory to
// wait for, then the image), each chunk authenticated as it is read.
func (s *PreviewService) render(ctx context.Context, c *Contents) ([]byte, error) {
	open := func() (io.ReadCloser, error) {
		rc, err := c.decrypting(ctx)
		if err != nil {
			return nil, err
		}
		return rc, nil
	}
	wait, cancel := context.WithTimeout(ctx, previewWait)
	defer cancel()
	var out bytes.Buffer
	err := s.renderer.Preview(wait, &out, open, c.Image.Size, c.Image.ContentType, PreviewMaxSide)
	if wait.Err() != nil && errors.Is(err, wait.Err()) {
		return nil, domain.Wrap(domain.EUNAVAILABLE, err, "The service is busy. Please try again.")
	}
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// storedRange measures a DICOM image's stored sample values (for the
// analysis: how much of the bit depth they use), within the memory budget
// previews share; false when there is nothing to measure.
func (s *PreviewService) storedRange(ctx context.Context, im domain.Image) (medimg.StoredRange, bool) {
	if im.ContentType != domain.TypeDICOM {
		return medimg.StoredRange{}, false
	}
	key, err := s.keys.Unwrap(im.WrappedKey, im.ID)
	if err != nil {
		return medimg.StoredRange{}, false
	}
	open := func() (io.ReadCloser, error) {
		rc, err := openDecrypting(ctx, s.blobs, im.BlobKey, key, im.ID)
		if err != nil {
			return nil, err
		}
		return rc, nil
	}
	wait, cancel := context.WithTimeout(ctx, previewWait)
	defer cancel()
	r, err := s.renderer.StoredRange(wait, open, im.Size)
	if err != nil {
		if !errors.Is(err, medimg.ErrNoPreview) {
			s.logger.Warn("could not measure the stored values of an image", "image", im.ID, "err", err)
		}
		return medimg.StoredRange{}, false
	}
	return r, true
}

// keepPreview stores a rendered preview encrypted under a fresh key and
// records it, unless another render was recorded first (whose object then
// stays, and this one goes). Failures only cost a later render, so they
// are logged, not returned.
func (s *PreviewService) keepPreview(ctx context.Context, imageID string, png, sum []byte) {
	pv := domain.Preview{ImageID: imageID, State: domain.PreviewReady, BlobKey: previewPrefix + uuid.NewString(),
		KeyID: s.keys.KeyID(), Size: int64(len(png)), SHA256: sum}
	key, wrapped, err := s.keys.NewFileKey(pv.FileID())
	if err != nil {
		s.logger.Warn("could not make a preview key", "image", imageID, "err", err)
		return
	}
	pv.WrappedKey = wrapped
	var sealed bytes.Buffer
	enc, err := secure.NewEncryptWriter(&sealed, key, pv.FileID())
	if err == nil {
		_, err = enc.Write(png)
	}
	if err == nil {
		err = enc.Close()
	}
	if err == nil {
		err = s.blobs.Put(ctx, pv.BlobKey, &sealed)
	}
	if err != nil {
		s.logger.Warn("could not store a preview", "image", imageID, "err", err)
		return
	}
	recorded, err := s.store.CreatePreview(ctx, pv)
	if err != nil || !recorded {
		// The image was deleted meanwhile, or another render came first.
		removeBlob(s.blobs, s.logger, pv.BlobKey)
	}
}

// loadPreview reads a stored preview whole and checks it against its record.
// Errors: EINTERNAL (damaged), EUNAVAILABLE.
func (s *PreviewService) loadPreview(ctx context.Context, pv domain.Preview) ([]byte, error) {
	if pv.Size > maxStoredPreview {
		return nil, domain.Errorf(domain.EINTERNAL, "The file could not be decrypted.")
	}
	key, err := s.keys.Unwrap(pv.WrappedKey, pv.FileID())
	if err != nil {
		return nil, err
	}
	rc, err := openDecrypting(ctx, s.blobs, pv.BlobKey, key, pv.FileID())
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }() // read only: nothing to lose
	var out bytes.Buffer
	out.Grow(int(pv.Size))
	if _, err := io.Copy(&out, io.LimitReader(rc, pv.Size+1)); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(out.Bytes())
	if int64(out.Len()) != pv.Size || !hmac.Equal(sum[:], pv.SHA256) {
		return nil, domain.Errorf(domain.EINTERNAL, "The file could not be decrypted.")
	}
	return out.Bytes(), nil
}
