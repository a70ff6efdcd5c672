package mail

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/medishare/medishare/internal/domain"
)

const devFrom = "MediShare <no-reply@localhost>"

// DevMailer is the development sender: it logs each message, body included,
// so a developer can read codes in the server log, and keeps it as an .eml
// file. Never use it in production: the log would hold live codes.
type DevMailer struct {
	dir    string
	logger *slog.Logger
}

// NewDevMailer writes messages to dir (created on first use, mode 0700) and
// to logger (slog.Default() when nil).
func NewDevMailer(dir string, logger *slog.Logger) *DevMailer {
	if logger == nil {
		logger = slog.Default()
	}
	return &DevMailer{dir: dir, logger: logger}
}

// Send logs m and writes it to dir/<UTC time>-<random>.eml.
// Errors: EINVALID when the recipient address does not parse, EUNAVAILABLE
// when the file cannot be written.
func (d *DevMailer) Send(ctx context.Context, m Message) error {
	// 8bit, not quoted-printable, so people and tests can grep codes and links.
	msg, err := newMsg(devFrom, m, gomail.NoEncoding)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return domain.Wrap(domain.EUNAVAILABLE, err, sendFailed)
	}
	d.logger.InfoContext(ctx, "mail (development: not sent)", "to", m.To, "subject", m.Subject, "text", m.Text)

	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + randomHex(4) + ".eml"
	if err := writeFileAtomic(d.dir, name, buf.Bytes()); err != nil {
		return domain.Wrap(domain.EUNAVAILABLE, err, sendFailed)
	}
	return nil
}

// writeFileAtomic writes through a temporary file and a rename, so a reader
// watching dir for *.eml never sees half a message.
func writeFileAtomic(dir, name string, data []byte) (err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".mail-*.tmp") // mode 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil { // best effort: err is the one to report
			_ = f.Close() // may already be closed
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	return nil
}
