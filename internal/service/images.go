package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg"
	"github.com/medishare/medishare/internal/secure"
)

// SignedURLTTL is how long an image_url or preview_url works (S10).
const SignedURLTTL = 5 * time.Minute

// PreviewMaxSide bounds preview renderings.
const PreviewMaxSide = 1024

// ImageStore is what the images service needs from the database.
type ImageStore interface {
	Transactor
	AuditWriter
	UserByID(ctx context.Context, id string) (domain.User, error)
	CreateImage(ctx context.Context, im domain.Image) error
	Image(ctx context.Context, id string) (domain.Image, error)
	Images(ctx context.Context, uploadedBy string, page domain.Page) ([]domain.Image, int, error)
	DeleteImage(ctx context.Context, id string) (string, error)
	BlobReferenced(ctx context.Context, key string) (bool, error)
	RecipientShare(ctx context.Context, imageID, recipientID string) (domain.Share, error)
	MarkShareExpiryLogged(ctx context.Context, id string) (bool, error)
	ImagesSharedWith(ctx context.Context, recipientID string, now time.Time, page domain.Page) ([]domain.Image, int, error)
	AttachShares(ctx context.Context, images []domain.Image) error
}

// ContentStore keeps the encrypted contents (blob.Store).
type ContentStore interface {
	Put(ctx context.Context, key string, r io.Reader) error
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
	Walk(ctx context.Context, prefix string, olderThan time.Time, fn func(key string) error) error
}

// KeyWrapper makes and opens per-file content keys (secure.Envelope).
type KeyWrapper interface {
	NewFileKey(fileID string) (key, wrapped []byte, err error)
	Unwrap(wrapped []byte, fileID string) ([]byte, error)
	KeyID() []byte
}

// ImageService stores, lists, serves and deletes medical files.
type ImageService struct {
	store    ImageStore
	blobs    ContentStore
	keys     KeyWrapper
	signKey  []byte
	logger   *slog.Logger
	now      Clock
	previews *medimg.Previewer // renders share its memory budget
}

// NewImageService wires the images use cases; signKey signs content URLs, and
// previews renders previews within the process's memory budget for them.
func NewImageService(store ImageStore, blobs ContentStore, keys KeyWrapper, signKey []byte, logger *slog.Logger, now Clock, previews *medimg.Previewer) *ImageService {
	return &ImageService{store: store, blobs: blobs, keys: keys, signKey: signKey, logger: logger, now: now, previews: previews}
}

const blobPrefix = "images/"

var (
	errImageNotFound = domain.Errorf(domain.ENOTFOUND, "Image not found.")
	errTooLarge      = domain.Errorf(domain.ETOOLARGE, "File size exceeds 10MB limit.")
)

// Received is an upload whose contents are stored but not yet recorded.
type Received struct {
	image domain.Image
}

// CheckCanUpload refuses callers without the upload permission. Errors: EFORBIDDEN.
func CheckCanUpload(p *domain.Principal) error {
	if !p.Can(domain.PermImagesUpload) {
		return domain.Errorf(domain.EFORBIDDEN, "You are not allowed to upload images.")
	}
	return nil
}

// CheckUploadFields validates the caption and patient of an upload.
// Errors: EVALIDATION.
func (s *ImageService) CheckUploadFields(ctx context.Context, caption, patientID string) (string, domain.User, error) {
	caption = strings.TrimSpace(caption)
	if caption == "" {
		return "", domain.User{}, domain.ValidationError("Please provide a caption.", domain.FieldError{Field: "caption", Message: "Please provide a caption."})
	}
	if utf8.RuneCountInString(caption) > domain.MaxCaptionLen {
		return "", domain.User{}, domain.ValidationError("The caption is too long.", domain.FieldError{Field: "caption", Message: fmt.Sprintf("must be at most %d characters", domain.MaxCaptionLen)})
	}
	patient, err := s.store.UserByID(ctx, patientID)
	if err != nil && domain.ErrorKind(err) != domain.ENOTFOUND {
		return "", domain.User{}, err
	}
	if err != nil || patient.Role != domain.RolePatient || !patient.Active {
		return "", domain.User{}, domain.ValidationError("Please choose an active patient.", domain.FieldError{Field: "patientId", Message: "must be an active patient"})
	}
	return caption, patient, nil
}

// Receive reads body, whose reads fail with an ETOOLARGE error past the size
// limit, and checks, cleans, encrypts and stores a file's contents, streaming.
// Commit records it afterwards, so a crash in between leaves at most an
// unreferenced blob for the janitor (S24).
// Errors: EFORBIDDEN, EUNSUPPORTED, ETOOLARGE, EVALIDATION, EUNAVAILABLE.
func (s *ImageService) Receive(ctx context.Context, p *domain.Principal, fileName string, body io.Reader) (*Received, error) {
	if err := CheckCanUpload(p); err != nil {
		return nil, err
	}
	head := make([]byte, 132)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		if domain.ErrorKind(err) == domain.ETOOLARGE {
			return nil, errTooLarge
		}
		return nil, domain.Wrap(domain.EINVALID, err, "The upload could not be read.")
	}
	head = head[:n]
	contentType, err := medimg.Detect(head, fileName)
	if err != nil {
		return nil, err
	}
	im := domain.Image{
		ID: uuid.NewString(), ContentType: contentType, FileName: medimg.CleanName(fileName),
		UploadedBy: domain.Person{ID: p.User.ID, Firstname: p.User.Firstname, Lastname: p.User.Lastname},
		KeyID:      s.keys.KeyID(), CreatedAt: s.now(),
	}
	im.BlobKey = blobPrefix + im.ID
	key, wrapped, err := s.keys.NewFileKey(im.ID)
	if err != nil {
		return nil, err
	}
	im.WrappedKey = wrapped
	info, size, sum, err := s.storeContents(ctx, im.BlobKey, key, im.ID, io.MultiReader(bytes.NewReader(head), body), contentType)
	if err != nil {
		return nil, err
	}
	im.Size, im.SHA256, im.Width, im.Height = size, sum, info.Width, info.Height
	if info.DICOM != nil {
		im.DICOM = &domain.DICOMFacts{
			Modality: info.DICOM.Modality, BodyPart: info.DICOM.BodyPart, StudyDescription: info.DICOM.StudyDescription,
			Rows: info.DICOM.Rows, Columns: info.DICOM.Columns, Frames: info.DICOM.Frames,
		}
	}
	return &Received{image: im}, nil
}

// Discard removes the contents of an upload that will not be committed.
func (s *ImageService) Discard(r *Received) {
	if r != nil {
		s.removeBlob(r.image.BlobKey)
	}
}

// Commit records a received upload for a patient, with its audit entry in the
// same transaction. On failure the contents are removed.
// Errors: EVALIDATION, EUNAVAILABLE.
func (s *ImageService) Commit(ctx context.Context, p *domain.Principal, r *Received, caption, patientID string, meta domain.RequestMeta) (domain.Image, error) {
	caption, patient, err := s.CheckUploadFields(ctx, caption, patientID)
	if err != nil {
		s.Discard(r)
		return domain.Image{}, err
	}
	im := r.image
	im.Caption = caption
	im.Patient = domain.Person{ID: patient.ID, Firstname: patient.Firstname, Lastname: patient.Lastname}
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.CreateImage(ctx, im); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "upload", "images", im.ID, true, im.ContentType))
	})
	if err != nil {
		s.Discard(r)
		return domain.Image{}, err
	}
	return im, nil
}

// storeContents streams src through the cleaner and the encryption into the
// blob store. On any failure nothing is left behind.
func (s *ImageService) storeContents(ctx context.Context, blobKey string, key []byte, fileID string, src io.Reader, contentType string) (medimg.Info, int64, []byte, error) {
	pr, pw := io.Pipe()
	stored := make(chan error, 1)
	go func() {
		err := s.blobs.Put(ctx, blobKey, pr)
		pr.CloseWithError(err) // unblock the writer if the store gave up
		stored <- err
	}()
	enc, err := secure.NewEncryptWriter(pw, key, fileID)
	if err != nil {
		pw.CloseWithError(err)
		<-stored
		return medimg.Info{}, 0, nil, err
	}
	info, cleanErr := medimg.Clean(enc, src, contentType)
	if cleanErr == nil {
		cleanErr = enc.Close()
	}
	pw.CloseWithError(cleanErr)
	putErr := <-stored
	if cleanErr != nil || putErr != nil {
		s.removeBlob(blobKey)
		if cleanErr != nil {
			if domain.ErrorKind(cleanErr) == domain.ETOOLARGE {
				return medimg.Info{}, 0, nil, errTooLarge
			}
			return medimg.Info{}, 0, nil, cleanErr
		}
		return medimg.Info{}, 0, nil, putErr
	}
	return info, enc.PlainSize(), enc.PlainSHA256(), nil
}

func (s *ImageService) removeBlob(key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.blobs.Delete(ctx, key); err != nil {
		s.logger.Warn("could not remove contents; the janitor will", "key", key, "err", err)
	}
}

// Get returns an image the caller may see: its uploader and admins may, and
// so may the recipient of an open, unexpired share (ViaShare is then set;
// the contents wait for the share's verification, see Opens).
// Errors: ENOTFOUND.
func (s *ImageService) Get(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.store.Image(ctx, id)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return domain.Image{}, errImageNotFound
	} else if err != nil {
		return domain.Image{}, err
	}
	if p.User.Role == domain.RoleAdmin || im.UploadedBy.ID == p.User.ID {
		return im, nil
	}
	deny := func(reason string) (domain.Image, error) {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "images", id, false, reason))
		return domain.Image{}, errImageNotFound
	}
	if !p.Can(domain.PermImagesViewShared) {
		return deny("not the uploader")
	}
	sh, err := s.store.RecipientShare(ctx, im.ID, p.User.ID)
	if domain.ErrorKind(err) == domain.ENOTFOUND {
		return deny("not the uploader, no open share")
	} else if err != nil {
		return domain.Image{}, err
	}
	if sh.Status(s.now()) == domain.ShareExpired {
		if err := logShareExpiry(ctx, s.store, sh, p.User.ID, meta); err != nil {
			return domain.Image{}, err
		}
		return deny("share " + sh.ID + " expired")
	}
	im.ViaShare = &sh
	return im, nil
}

// Opens reports whether the caller who got im from Get may see its
// contents: always, unless they reach it through a share not yet verified.
func (s *ImageService) Opens(im domain.Image) bool {
	return im.ViaShare == nil || im.ViaShare.Opens(s.now())
}

// getOpen is Get for the contents: a share must be verified first.
// Errors: ENOTFOUND, EFORBIDDEN.
func (s *ImageService) getOpen(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) (domain.Image, error) {
	im, err := s.Get(ctx, p, id, meta)
	if err != nil {
		return domain.Image{}, err
	}
	if !s.Opens(im) {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "images", id, false, "share "+im.ViaShare.ID+" not verified"))
		return domain.Image{}, domain.Errorf(domain.EFORBIDDEN, "Please verify this share before viewing the image.")
	}
	return im, nil
}

// Now is the service's clock, for share statuses computed outside it.
func (s *ImageService) Now() time.Time { return s.now() }

// ListShared returns the images shared with the caller through open,
// unexpired shares, newest share first.
func (s *ImageService) ListShared(ctx context.Context, p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
	if !p.Can(domain.PermImagesViewShared) {
		return nil, domain.PageOf{}, domain.Errorf(domain.EFORBIDDEN, "You are not allowed to see shared images.")
	}
	images, total, err := s.store.ImagesSharedWith(ctx, p.User.ID, s.now(), page)
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// ListUploaded returns the images the caller uploaded, newest first.
func (s *ImageService) ListUploaded(ctx context.Context, p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
	if !p.Can(domain.PermImagesUpload) {
		return nil, domain.PageOf{}, domain.Errorf(domain.EFORBIDDEN, "Only providers and admins upload images.")
	}
	images, total, err := s.store.Images(ctx, p.User.ID, page)
	if err == nil {
		err = s.store.AttachShares(ctx, images)
	}
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// ListAll returns every image (admins). Errors: EFORBIDDEN.
func (s *ImageService) ListAll(ctx context.Context, p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
	if p.User.Role != domain.RoleAdmin {
		return nil, domain.PageOf{}, domain.Errorf(domain.EFORBIDDEN, "Only admins see every image.")
	}
	images, total, err := s.store.Images(ctx, "", page)
	if err == nil {
		err = s.store.AttachShares(ctx, images)
	}
	return images, domain.PageOf{Page: page.Page, Limit: page.Limit, TotalItems: total}, err
}

// Contents is an open, decrypting stream of an image's bytes.
type Contents struct {
	Image domain.Image
	io.Reader
	closer io.Closer
}

// Close releases the stream.
func (c *Contents) Close() error { return c.closer.Close() }

// Open checks access, writes the access entry, and only then opens the
// contents (S19). kind is "view" or "preview" (for the audit log).
// Errors: ENOTFOUND, EFORBIDDEN (a share not verified), EUNAVAILABLE.
func (s *ImageService) Open(ctx context.Context, p *domain.Principal, id, kind string, meta domain.RequestMeta) (*Contents, error) {
	im, key, err := s.checkedKey(ctx, p, id, kind, meta)
	if err != nil {
		return nil, err
	}
	return s.decrypting(ctx, im, key)
}

// checkedKey checks access, writes the access entry, unwraps the content key
// and checks the whole contents against their SHA-256.
func (s *ImageService) checkedKey(ctx context.Context, p *domain.Principal, id, kind string, meta domain.RequestMeta) (domain.Image, []byte, error) {
	im, err := s.getOpen(ctx, p, id, meta)
	if err != nil {
		return domain.Image{}, nil, err
	}
	reason := ""
	if im.ViaShare != nil {
		reason = "via share " + im.ViaShare.ID
	}
	if err := s.store.AppendAudit(ctx, audit(meta, p.User.ID, kind, "images", id, true, reason)); err != nil {
		return domain.Image{}, nil, err
	}
	key, err := s.keys.Unwrap(im.WrappedKey, im.ID)
	if err != nil {
		return domain.Image{}, nil, err
	}
	// A first pass checks every chunk and the SHA-256 before anything is
	// sent, so a damaged or swapped object fails cleanly and shows no
	// plaintext at all. The second pass, the one sent, needs no hash: each
	// chunk's tag binds it to this file, its place and the end, under a key
	// only this file has.
	verify, err := s.decrypting(ctx, im, key)
	if err != nil {
		return domain.Image{}, nil, err
	}
	h := sha256.New()
	_, err = io.Copy(h, verify)
	verify.Close()
	if err != nil {
		return domain.Image{}, nil, err
	}
	if !hmac.Equal(h.Sum(nil), im.SHA256) {
		return domain.Image{}, nil, domain.Errorf(domain.EINTERNAL, "The file could not be decrypted.")
	}
	return im, key, nil
}

// decrypting opens an image's contents as a stream of authenticated plaintext.
func (s *ImageService) decrypting(ctx context.Context, im domain.Image, key []byte) (*Contents, error) {
	rc, err := s.blobs.Get(ctx, im.BlobKey)
	if err != nil {
		return nil, err
	}
	plain, err := secure.NewDecryptReader(rc, key, im.ID)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return &Contents{Image: im, Reader: plain, closer: rc}, nil
}

// previewWait bounds how long a preview waits for memory: less than the
// server's write timeout, so no render starts for an answer that can no
// longer be sent.
const previewWait = time.Minute

// Preview writes a PNG rendering of an image. Decoding can take hundreds of
// MiB, so renders wait their turn for a memory budget the process shares
// (medimg.Previewer); the contents are read twice, for the header that sets
// the memory needed and then to render, so a waiting preview holds nothing.
// Errors: ENOTFOUND (also "Preview not available."), EUNAVAILABLE (also
// "The service is busy. Please try again." when the wait runs out).
func (s *ImageService) Preview(ctx context.Context, p *domain.Principal, id string, dst io.Writer, meta domain.RequestMeta) error {
	im, key, err := s.checkedKey(ctx, p, id, "preview", meta)
	if err != nil {
		return err
	}
	open := func() (io.ReadCloser, error) {
		c, err := s.decrypting(ctx, im, key)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	wait, cancel := context.WithTimeout(ctx, previewWait)
	defer cancel()
	err = s.previews.Preview(wait, dst, open, im.Size, im.ContentType, PreviewMaxSide)
	if wait.Err() != nil && errors.Is(err, wait.Err()) {
		return domain.Wrap(domain.EUNAVAILABLE, err, "The service is busy. Please try again.")
	}
	return err
}

// Delete removes an image: the record (with its audit entry) first, then the
// contents. Errors: ENOTFOUND, EFORBIDDEN.
func (s *ImageService) Delete(ctx context.Context, p *domain.Principal, id string, meta domain.RequestMeta) error {
	im, err := s.Get(ctx, p, id, meta)
	if err != nil {
		return err
	}
	if !p.Can(domain.PermImagesDelete) || im.ViaShare != nil {
		_ = s.store.AppendAudit(ctx, audit(meta, p.User.ID, "access_denied", "images", id, false, "delete: not the uploader"))
		return domain.Errorf(domain.EFORBIDDEN, "Only the uploader or an admin can delete an image.")
	}
	var key string
	err = s.store.InTx(ctx, func(ctx context.Context) error {
		if key, err = s.store.DeleteImage(ctx, im.ID); err != nil {
			return err
		}
		return s.store.AppendAudit(ctx, audit(meta, p.User.ID, "delete", "images", im.ID, true, ""))
	})
	if err != nil {
		return err
	}
	s.removeBlob(key)
	return nil
}

// CollectOrphans removes contents older than an hour that no record points
// at: what a crash between the two phases of an upload leaves (S24).
func (s *ImageService) CollectOrphans(ctx context.Context) (int, error) {
	removed := 0
	err := s.blobs.Walk(ctx, blobPrefix, s.now().Add(-time.Hour), func(key string) error {
		ref, err := s.store.BlobReferenced(ctx, key)
		if err != nil || ref {
			return err
		}
		if err := s.blobs.Delete(ctx, key); err != nil {
			return err
		}
		removed++
		return nil
	})
	return removed, err
}

// SignedURL returns a URL for an image's content or preview that works for
// SignedURLTTL, only for this caller's session (S10): signing out, and every
// change that ends the session, ends the URL too.
func (s *ImageService) SignedURL(p *domain.Principal, imageID, kind string) string {
	exp := s.now().Add(SignedURLTTL).Unix()
	q := url.Values{}
	q.Set("s", p.SessionID)
	q.Set("exp", strconv.FormatInt(exp, 10))
	q.Set("sig", s.signature(p.SessionID, imageID, kind, exp))
	return "/api/upload/image/" + imageID + "/" + kind + "?" + q.Encode()
}

func (s *ImageService) signature(sessionID, imageID, kind string, exp int64) string {
	mac := hmac.New(sha256.New, s.signKey)
	fmt.Fprintf(mac, "%s\n%s\n%s\n%d", sessionID, imageID, kind, exp)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckSignedURL returns the session a signed URL was made for, if the
// signature is right and not expired. Errors: EUNAUTHENTICATED.
func (s *ImageService) CheckSignedURL(sessionID, imageID, kind, expText, sig string) (string, error) {
	exp, err := strconv.ParseInt(expText, 10, 64)
	bad := domain.Errorf(domain.EUNAUTHENTICATED, "This link has expired. Please reload the page.")
	if err != nil || s.now().Unix() > exp || exp > s.now().Add(SignedURLTTL+time.Minute).Unix() {
		return "", bad
	}
	want := s.signature(sessionID, imageID, kind, exp)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return "", bad
	}
	return sessionID, nil
}
