package httpapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

// An upload is the file plus a little form overhead (api.md).
const maxUploadBody = domain.MaxUploadBytes + 64<<10

// contentPolicy sandboxes whatever a stored file holds (S16).
const contentPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

type personJSON struct {
	ID        string `json:"id"`
	Firstname string `json:"firstname"`
	Lastname  string `json:"lastname"`
}

// imageJSON is the image object of api.md, with the image's shares for its
// uploader and admins.
type imageJSON struct {
	ID               string             `json:"id"`
	Caption          string             `json:"caption"`
	ContentType      string             `json:"contentType"`
	FileName         string             `json:"fileName"`
	Size             int64              `json:"size"`
	CreatedAt        time.Time          `json:"createdAt"`
	ImageURL         *string            `json:"image_url"`
	PreviewURL       *string            `json:"preview_url"`
	IsShared         bool               `json:"isShared"`
	IsVerified       bool               `json:"isVerified"`
	SharingRequestID *string            `json:"sharingRequestId"`
	ExpiresAt        *time.Time         `json:"expiresAt"`
	SharedBy         *personJSON        `json:"sharedBy"`
	UploadedBy       personJSON         `json:"uploadedBy"`
	Patient          personJSON         `json:"patient"`
	DICOM            *domain.DICOMFacts `json:"dicom"`
	Shares           []imageShareJSON   `json:"shares"`
}

// imageShareJSON is one share on the uploader's card.
type imageShareJSON struct {
	ID         string     `json:"id"`
	SharedBy   personJSON `json:"sharedBy"`
	SharedWith personJSON `json:"sharedWith"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
}

func (a *api) toImageJSON(p *domain.Principal, im domain.Image) imageJSON {
	now := a.images.Now()
	out := imageJSON{
		ID: im.ID, Caption: im.Caption, ContentType: im.ContentType, FileName: im.FileName, Size: im.Size,
		CreatedAt: im.CreatedAt.UTC(), IsVerified: true, DICOM: im.DICOM,
		UploadedBy: personJSON(im.UploadedBy), Patient: personJSON(im.Patient), Shares: []imageShareJSON{},
	}
	for _, sh := range im.Shares {
		status := sh.Status(now)
		out.Shares = append(out.Shares, imageShareJSON{ID: sh.ID, SharedBy: personJSON(sh.SharedBy), SharedWith: personJSON(sh.SharedWith),
			Status: status, CreatedAt: sh.CreatedAt.UTC(), ExpiresAt: sh.ExpiresAt.UTC()})
		out.IsShared = out.IsShared || status == domain.SharePending || status == domain.ShareVerified
	}
	if sh := im.ViaShare; sh != nil {
		by := personJSON(sh.SharedBy)
		expires := sh.ExpiresAt.UTC()
		out.IsShared, out.IsVerified, out.SharingRequestID, out.ExpiresAt, out.SharedBy = true, sh.VerifiedAt != nil, &sh.ID, &expires, &by
	}
	if !a.images.Opens(im) {
		return out // image_url and preview_url stay null until the share is verified
	}
	content := a.images.SignedURL(p, im.ID, "content")
	out.ImageURL = &content
	hasPixels := im.ContentType == "image/jpeg" || im.ContentType == "image/png" ||
		(im.DICOM != nil && im.DICOM.Rows > 0 && im.DICOM.Columns > 0)
	if hasPixels {
		preview := a.images.SignedURL(p, im.ID, "preview")
		out.PreviewURL = &preview
	}
	return out
}

func (a *api) mountImages(r chi.Router) {
	r.Post("/upload/image", a.uploadImage)
	r.Get("/upload/my-images", a.listMyImages)
	r.Get("/upload/shared-images", a.listSharedImages)
	r.Get("/upload/images", a.listAllImages)
	r.Get("/upload/image/{id}", a.getImage)
	r.Delete("/upload/image/{id}", a.deleteImage)
}

// mountImageContent serves contents to a bearer token or a signed URL.
func (a *api) mountImageContent(r chi.Router) {
	r.With(a.bearerOrSignedURL("content")).Get("/upload/image/{id}/content", a.imageContent)
	r.With(a.bearerOrSignedURL("preview")).Get("/upload/image/{id}/preview", a.imagePreview)
}

// bearerOrSignedURL lets <img> and <iframe> fetch contents with a short-lived
// signed URL instead of a bearer token, which never goes into a URL (S10).
func (a *api) bearerOrSignedURL(kind string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		bearer := a.requireAuth(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.Header.Get("Authorization") != "" || q.Get("sig") == "" {
				bearer.ServeHTTP(w, r)
				return
			}
			sessionID, err := a.images.CheckSignedURL(q.Get("s"), chi.URLParam(r, "id"), kind, q.Get("exp"), q.Get("sig"))
			if err != nil {
				a.fail(w, r, err)
				return
			}
			p, err := a.auth.SessionPrincipal(r.Context(), sessionID)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxPrincipal{}, p)))
		})
	}
}

// fileLimit refuses a file part over the upload limit (S11), and reports the
// body limit's error in the product's words too.
type fileLimit struct {
	r    io.Reader
	left int64
}

var errFileTooLarge = domain.Errorf(domain.ETOOLARGE, "File size exceeds 10MB limit.")

func (f *fileLimit) Read(b []byte) (int, error) {
	if f.left < 0 {
		return 0, errFileTooLarge
	}
	if int64(len(b)) > f.left+1 {
		b = b[:f.left+1]
	}
	n, err := f.r.Read(b)
	f.left -= int64(n)
	if f.left < 0 {
		return n, errFileTooLarge
	}
	if errors.As(err, new(*http.MaxBytesError)) {
		return n, errFileTooLarge
	}
	return n, err
}

type bufferedBody struct {
	*bufio.Reader
	io.Closer
}

// uploadImage streams the multipart form: the file part goes straight through
// cleaning and encryption into the store, never whole into memory (S11).
func (a *api) uploadImage(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	if err := service.CheckCanUpload(p); err != nil {
		a.fail(w, r, err)
		return
	}
	if r.ContentLength > maxUploadBody {
		a.fail(w, r, errFileTooLarge)
		return
	}
	// multipart reads 4 KiB at a time; a larger buffer underneath turns
	// those into a few large socket reads.
	r.Body = http.MaxBytesReader(w, bufferedBody{bufio.NewReaderSize(r.Body, 64<<10), r.Body}, maxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		a.fail(w, r, domain.Errorf(domain.EINVALID, "Please send the upload as multipart/form-data."))
		return
	}
	var caption, patientID string
	var received *service.Received
	discard := func() { a.images.Discard(received) }
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			discard()
			if errors.As(err, new(*http.MaxBytesError)) {
				a.fail(w, r, errFileTooLarge)
				return
			}
			a.fail(w, r, domain.Errorf(domain.EINVALID, "The upload could not be read."))
			return
		}
		switch part.FormName() {
		case "caption", "patientId":
			b, err := io.ReadAll(io.LimitReader(part, 4<<10))
			if err != nil {
				discard()
				a.fail(w, r, domain.Errorf(domain.EINVALID, "The upload could not be read."))
				return
			}
			if part.FormName() == "caption" {
				caption = string(b)
			} else {
				patientID = strings.TrimSpace(string(b))
			}
		case "file":
			if received != nil {
				discard()
				a.fail(w, r, domain.ValidationError("Please upload one file at a time.", domain.FieldError{Field: "file", Message: "only one file per upload"}))
				return
			}
			if caption != "" && patientID != "" { // fail fast before reading the file
				if _, _, err := a.images.CheckUploadFields(r.Context(), caption, patientID); err != nil {
					a.fail(w, r, err)
					return
				}
			}
			received, err = a.images.Receive(r.Context(), p, part.FileName(), &fileLimit{r: part, left: domain.MaxUploadBytes})
			if err != nil {
				a.fail(w, r, err)
				return
			}
		}
		_ = part.Close() // skips the rest of the part; a broken body shows at the next NextPart
	}
	if received == nil {
		a.fail(w, r, domain.ValidationError("Please select a file to upload.", domain.FieldError{Field: "file", Message: "Please select a file to upload."}))
		return
	}
	im, err := a.images.Commit(r.Context(), p, received, caption, patientID, meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Image uploaded successfully!", a.toImageJSON(p, im))
}

func (a *api) writeImages(w http.ResponseWriter, r *http.Request, list func(p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error)) {
	page, err := pageParams(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p := principal(r)
	images, pageOf, err := list(p, page)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]imageJSON, len(images))
	for i, im := range images {
		out[i] = a.toImageJSON(p, im)
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Pagination: paginationOf(pageOf)})
}

func (a *api) listMyImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, func(p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
		return a.images.ListUploaded(r.Context(), p, page)
	})
}

func (a *api) listAllImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, func(p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
		return a.images.ListAll(r.Context(), p, page)
	})
}

// listSharedImages lists images shared with the caller through open, unexpired shares.
func (a *api) listSharedImages(w http.ResponseWriter, r *http.Request) {
	a.writeImages(w, r, func(p *domain.Principal, page domain.Page) ([]domain.Image, domain.PageOf, error) {
		return a.images.ListShared(r.Context(), p, page)
	})
}

func (a *api) getImage(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	im, err := a.images.Get(r.Context(), p, chi.URLParam(r, "id"), meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "", a.toImageJSON(p, im))
}

func (a *api) deleteImage(w http.ResponseWriter, r *http.Request) {
	if err := a.images.Delete(r.Context(), principal(r), chi.URLParam(r, "id"), meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, "Image deleted successfully.", nil)
}

// imageContent streams the original bytes, decrypted on the fly, honouring
// a single Range (S16).
func (a *api) imageContent(w http.ResponseWriter, r *http.Request) {
	c, err := a.images.Open(r.Context(), principal(r), chi.URLParam(r, "id"), "view", meta(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer func() { _ = c.Close() }() // read only: nothing to lose
	h := w.Header()
	h.Set("Content-Type", c.Image.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": c.Image.FileName}))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Accept-Ranges", "bytes")

	// Open has checked every chunk and the SHA-256 already, so a damaged
	// file has failed cleanly before this point.
	start, length, ok := parseRange(r.Header.Get("Range"), c.Image.Size)
	if !ok {
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", c.Image.Size))
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		return
	}
	status := http.StatusOK
	if length != c.Image.Size {
		// Contents are decrypted from the start; skipping is cheap at 10 MiB and keeps memory flat.
		if _, err := io.CopyN(io.Discard, c, start); err != nil {
			a.fail(w, r, err)
			return
		}
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+length-1, c.Image.Size))
		status = http.StatusPartialContent
	}
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	var sent int64
	if status == http.StatusOK {
		sent, err = io.Copy(w, c.Reader) // the decrypting reader writes its chunks straight out
	} else {
		sent, err = io.CopyN(w, c, length)
	}
	if err != nil || sent != length {
		// The status is sent; a broken stream must not look complete, so abort the connection.
		panic(http.ErrAbortHandler)
	}
}

// parseRange reads a single "bytes=a-b", "bytes=a-" or "bytes=-n" range.
// No header, or several ranges, means the whole file; ok is false when the
// range cannot be satisfied.
func parseRange(header string, size int64) (start, length int64, ok bool) {
	spec, found := strings.CutPrefix(header, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, size, true
	}
	from, to, _ := strings.Cut(spec, "-")
	switch from {
	case "":
		n, err := strconv.ParseInt(to, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		n = min(n, size)
		return size - n, n, size > 0
	default:
		a, err := strconv.ParseInt(from, 10, 64)
		if err != nil || a < 0 || a >= size {
			return 0, 0, false
		}
		b := size - 1
		if to != "" {
			if b, err = strconv.ParseInt(to, 10, 64); err != nil || b < a {
				return 0, 0, false
			}
			b = min(b, size-1)
		}
		return a, b - a + 1, true
	}
}

func (a *api) imagePreview(w http.ResponseWriter, r *http.Request) {
	// Rendered into a buffer of bounded size (a PNG of at most 1024 px a side)
	// so that a failed rendering can still answer with a clean error.
	pw := &previewWriter{}
	if err := a.images.Preview(r.Context(), principal(r), chi.URLParam(r, "id"), pw, meta(r)); err != nil {
		a.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("Content-Length", strconv.Itoa(len(pw.b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pw.b)
}

// previewWriter collects a rendered preview.
type previewWriter struct{ b []byte }

func (p *previewWriter) Write(b []byte) (int, error) {
	p.b = append(p.b, b...)
	return len(b), nil
}
