package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/medishare/medishare/internal/domain"
)

// S3Config is the bucket and how to reach it (the S3 settings of the
// server's configuration).
type S3Config struct {
	Endpoint        string // e.g. http://127.0.0.1:9000; empty for AWS itself
	Region          string // us-east-1 when empty
	Bucket          string
	AccessKeyID     string
	SecretAccessKey string
	PathStyle       bool // most S3-compatible servers need it
}

// PartSize is the part size of multipart uploads and so the memory one Put
// holds. 5 MiB is S3's minimum part size.
const PartSize = 5 << 20

// partBuffers are reused across uploads; each Put holds exactly one.
var partBuffers = sync.Pool{New: func() any { b := make([]byte, PartSize); return &b }}

// S3 keeps contents in an S3-compatible bucket.
type S3 struct {
	client *s3.Client
	bucket string
}

var _ Store = (*S3)(nil)

// NewS3 makes a client for the bucket; it does not connect (Ping does).
// Errors: EINVALID when the bucket is not set.
func NewS3(cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, domain.Errorf(domain.EINVALID, "S3 bucket is not set")
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	var creds aws.CredentialsProvider = aws.AnonymousCredentials{}
	if cfg.AccessKeyID != "" {
		static := aws.Credentials{AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey, Source: "medishare"}
		creds = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return static, nil })
	}
	opts := s3.Options{
		Region:       region,
		Credentials:  creds,
		UsePathStyle: cfg.PathStyle,
		// S3-compatible servers often reject the newer default checksums.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		// Fail fast when the store is down (S27): a short dial timeout, few
		// retries and short backoffs, so a request turns into a 503 in
		// seconds rather than hanging.
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.MaxBackoff = 300 * time.Millisecond
		}),
		HTTPClient: awshttp.NewBuildableClient().
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = 5 * time.Second }).
			WithTransportOptions(func(t *http.Transport) {
				t.ResponseHeaderTimeout = 30 * time.Second
				t.MaxIdleConnsPerHost = 32
			}),
	}
	if cfg.Endpoint != "" {
		opts.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	return &S3{client: s3.New(opts), bucket: cfg.Bucket}, nil
}

// s3Error turns an SDK error into a domain error: missing objects are
// ENOTFOUND, our own bad requests EINTERNAL, and everything else (no
// connection, timeouts, 5xx, a missing bucket or refused credentials) means
// the store cannot serve us now: EUNAVAILABLE.
func s3Error(err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return errNotFound(err)
		case "NoSuchBucket", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
			return errUnavailable(err)
		}
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		if s := re.HTTPStatusCode(); s >= 400 && s < 500 && s != 403 && s != 408 && s != 429 {
			return domain.Wrap(domain.EINTERNAL, err, "The file store refused the request.")
		}
	}
	return errUnavailable(err)
}

func isAPIError(err error, codes ...string) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	for _, c := range codes {
		if api.ErrorCode() == c {
			return true
		}
	}
	return false
}

// Ping checks that the bucket answers with these credentials.
// Errors: EUNAVAILABLE.
func (s *S3) Ping(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return errUnavailable(err)
	}
	return nil
}

// Put uploads r with one 5 MiB buffer: an object that fits is one PutObject,
// a larger one a multipart upload whose parts go one at a time and which is
// aborted if anything fails. (The SDK's upload manager is deprecated and
// holds two part buffers even at concurrency 1.) S3 makes an object visible
// only when its PUT or multipart upload completes, so readers never see half.
// Errors: EINVALID for a bad key; r's own error as is; EUNAVAILABLE.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	bufp := partBuffers.Get().(*[]byte)
	defer partBuffers.Put(bufp)
	buf := *bufp
	src := &sourceReader{ctx: ctx, r: r}

	n, err := io.ReadFull(src, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: &key,
			Body: bytes.NewReader(buf[:n]), ContentLength: aws.Int64(int64(n)),
		})
		if err != nil {
			return src.putError(s3Error(err))
		}
		return nil
	}
	if err != nil {
		return src.putError(err)
	}
	return s.putMultipart(ctx, key, src, buf)
}

// putMultipart uploads the full buffer and the rest of src as parts.
func (s *S3) putMultipart(ctx context.Context, key string, src *sourceReader, buf []byte) error {
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return src.putError(s3Error(err))
	}
	abort := func(cause error) error {
		// The caller's context may be what failed; the abort still has to run.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = s.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
			Bucket: &s.bucket, Key: &key, UploadId: created.UploadId,
		})
		return src.putError(cause)
	}
	var parts []types.CompletedPart
	n := len(buf)
	for number := int32(1); ; number++ {
		out, err := s.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &s.bucket, Key: &key, UploadId: created.UploadId, PartNumber: aws.Int32(number),
			Body: bytes.NewReader(buf[:n]), ContentLength: aws.Int64(int64(n)),
		})
		if err != nil {
			return abort(s3Error(err))
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(number)})
		n, err = io.ReadFull(src, buf)
		if err == io.EOF {
			break
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return abort(err)
		}
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &s.bucket, Key: &key, UploadId: created.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		return abort(s3Error(err))
	}
	return nil
}

// Get opens the object.
// Errors: EINVALID for a bad key; ENOTFOUND; EUNAVAILABLE.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return nil, s3Error(err)
	}
	return objectReader{out.Body}, nil
}

// GetRange opens length bytes from offset, fewer if the object ends sooner.
// Errors: EINVALID for a bad key or a negative offset or length; ENOTFOUND;
// EUNAVAILABLE.
func (s *S3) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	if length == 0 {
		// HTTP has no empty range; still say whether the object exists.
		if _, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key}); err != nil {
			return nil, s3Error(err)
		}
		return emptyObject(), nil
	}
	rng := fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key, Range: &rng})
	if err != nil {
		if isAPIError(err, "InvalidRange") {
			return emptyObject(), nil // offset at or past the end
		}
		return nil, s3Error(err)
	}
	return objectReader{out.Body}, nil
}

// Delete removes the object; a missing one is not an error.
// Errors: EINVALID for a bad key; EUNAVAILABLE.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil && !isAPIError(err, "NoSuchKey", "NotFound") {
		return s3Error(err)
	}
	return nil
}

// Walk calls fn for every object under prefix modified before olderThan, in
// lexical order, then aborts multipart uploads under prefix started before
// olderThan (uploads a crash left unfinished; they hold storage but no key).
// Errors: EINVALID for a bad prefix; fn's error as is; EUNAVAILABLE.
func (s *S3) Walk(ctx context.Context, prefix string, olderThan time.Time, fn func(key string) error) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return s3Error(err)
		}
		for _, obj := range page.Contents {
			key := aws.ToString(obj.Key)
			if !validKey(key) || !aws.ToTime(obj.LastModified).Before(olderThan) {
				continue
			}
			if err := fn(key); err != nil {
				return err
			}
		}
	}
	return s.abortStaleUploads(ctx, prefix, olderThan)
}

func (s *S3) abortStaleUploads(ctx context.Context, prefix string, olderThan time.Time) error {
	in := &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: &prefix}
	for {
		page, err := s.client.ListMultipartUploads(ctx, in)
		if err != nil {
			return s3Error(err)
		}
		for _, u := range page.Uploads {
			if !aws.ToTime(u.Initiated).Before(olderThan) {
				continue
			}
			_, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: &s.bucket, Key: u.Key, UploadId: u.UploadId,
			})
			if err != nil && !isAPIError(err, "NoSuchUpload") {
				return s3Error(err)
			}
		}
		if !aws.ToBool(page.IsTruncated) {
			return nil
		}
		in.KeyMarker, in.UploadIdMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}
