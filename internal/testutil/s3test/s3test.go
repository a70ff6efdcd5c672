// Package s3test gives tests real S3 buckets. It uses the server at
// TEST_S3_ENDPOINT (with TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY and
// optionally TEST_S3_REGION), or starts the repository's private test server
// with scripts/s3.sh. Each test gets a fresh bucket, emptied and removed
// afterwards.
package s3test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/medishare/medishare/internal/blob"
)

// TestServerPort is where the shared test server listens, unless
// MEDISHARE_TEST_S3_PORT names another port (two checkouts testing at once).
var TestServerPort = testServerPort()

func testServerPort() int {
	if n, err := strconv.Atoi(os.Getenv("MEDISHARE_TEST_S3_PORT")); err == nil && n > 0 {
		return n
	}
	return 9330
}

var (
	serverOnce sync.Once
	server     blob.S3Config
	serverErr  error
)

// Start returns a config for a fresh, empty bucket on the test server (with
// path-style addressing), and removes the bucket when the test ends.
func Start(t testing.TB) blob.S3Config {
	t.Helper()
	serverOnce.Do(func() { server, serverErr = findServer() })
	if serverErr != nil {
		t.Fatalf("s3test: %v", serverErr)
	}
	cfg := server
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	cfg.Bucket = "test-" + randomHex(8)
	client := NewClient(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &cfg.Bucket}); err != nil {
		t.Fatalf("s3test: create bucket: %v", err)
	}
	t.Cleanup(func() {
		if err := removeBucket(client, cfg.Bucket); err != nil {
			t.Errorf("s3test: remove bucket %s: %v", cfg.Bucket, err)
		}
	})
	return cfg
}

// NewClient is a plain SDK client for cfg, for checks the blob store does
// not offer (listing unfinished uploads, say).
func NewClient(cfg blob.S3Config) *s3.Client {
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	creds := aws.Credentials{AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey}
	return s3.New(s3.Options{
		Region:                     region,
		BaseEndpoint:               aws.String(cfg.Endpoint),
		UsePathStyle:               cfg.PathStyle,
		Credentials:                aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

func findServer() (blob.S3Config, error) {
	if ep := os.Getenv("TEST_S3_ENDPOINT"); ep != "" {
		return blob.S3Config{
			Endpoint:        ep,
			Region:          os.Getenv("TEST_S3_REGION"),
			AccessKeyID:     os.Getenv("TEST_S3_ACCESS_KEY_ID"),
			SecretAccessKey: os.Getenv("TEST_S3_SECRET_ACCESS_KEY"),
			PathStyle:       true,
		}, nil
	}
	root, err := repoRoot()
	if err != nil {
		return blob.S3Config{}, err
	}
	dir := filepath.Join(root, "data", "s3-test")
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "s3.sh"), "start", dir, strconv.Itoa(TestServerPort))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return blob.S3Config{}, fmt.Errorf("start the S3 server with scripts/s3.sh: %w", err)
	}
	return parseEnv(out), nil
}

// parseEnv reads the KEY=VALUE lines scripts/s3.sh prints.
func parseEnv(out []byte) blob.S3Config {
	cfg := blob.S3Config{PathStyle: true}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "S3_ENDPOINT":
			cfg.Endpoint = v
		case "S3_REGION":
			cfg.Region = v
		case "S3_ACCESS_KEY_ID":
			cfg.AccessKeyID = v
		case "S3_SECRET_ACCESS_KEY":
			cfg.SecretAccessKey = v
		}
	}
	return cfg
}

// removeBucket empties the bucket (objects and unfinished uploads) and
// deletes it.
func removeBucket(client *s3.Client, bucket string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, obj := range page.Contents {
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: obj.Key}); err != nil {
				return err
			}
		}
	}
	uploads, err := client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil {
		return err
	}
	for _, u := range uploads.Uploads {
		_, _ = client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: u.Key, UploadId: u.UploadId})
	}
	_, err = client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
	return err
}

// Uploads lists the unfinished multipart uploads in the bucket.
func Uploads(t testing.TB, cfg blob.S3Config) []types.MultipartUpload {
	t.Helper()
	out, err := NewClient(cfg).ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: &cfg.Bucket})
	if err != nil {
		t.Fatalf("s3test: list uploads: %v", err)
	}
	return out.Uploads
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working folder")
		}
		dir = parent
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Server is a private S3 server of one test, which it may stop and start
// again (an outage); it is stopped and removed when the test ends.
type Server struct {
	dir    string
	port   int
	Config blob.S3Config // with the bucket "medishare", made on start
}

// StartServer starts a private server in a folder of its own.
func StartServer(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "medishare-s3-")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // the port must be free for the server
	s := &Server{dir: dir, port: port}
	s.Start(t)
	t.Cleanup(func() {
		s.Stop(t)
		_ = os.RemoveAll(dir)
	})
	return s
}

// Start starts the server (again).
func (s *Server) Start(t testing.TB) {
	t.Helper()
	cmd := s.script("start", strconv.Itoa(s.port))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("s3test: start a private server: %v", err)
	}
	s.Config = parseEnv(out)
	s.Config.Bucket = "medishare"
}

// Stop stops the server.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if out, err := s.script("stop").CombinedOutput(); err != nil {
		t.Fatalf("s3test: stop the private server: %v\n%s", err, out)
	}
}

func (s *Server) script(args ...string) *exec.Cmd {
	root, _ := repoRoot()
	return exec.Command("bash", append([]string{filepath.Join(root, "scripts", "s3.sh"), args[0], s.dir}, args[1:]...)...)
}
