// Package mail sends the product's few mails: codes and links, in plain text,
// never medical details. SMTP sends them for real; DevMailer writes them to
// the log and to .eml files for local development.
package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	netmail "net/mail"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/medishare/medishare/internal/domain"
)

// Message is one plain-text mail to one recipient.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Mailer sends messages. Implementations return EINVALID for an address that
// does not parse and EUNAVAILABLE when the mail could not be delivered.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

const sendFailed = "Mail could not be sent."

// headerValue keeps a value on one header line: CR or LF in a subject or an
// address would otherwise let input add headers (Bcc: ...).
func headerValue(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// newMsg builds the message both mailers send, with the given body encoding.
func newMsg(from string, m Message, enc gomail.Encoding) (*gomail.Msg, error) {
	msg := gomail.NewMsg(
		gomail.WithEncoding(enc),
		gomail.WithCharset(gomail.Charset("utf-8")),
		gomail.WithNoDefaultUserAgent(), // no library name and version for strangers
	)
	fromAddr, err := netmail.ParseAddress(headerValue(from))
	if err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "The sender address is not valid.")
	}
	if err := msg.FromFormat(fromAddr.Name, fromAddr.Address); err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "The sender address is not valid.")
	}
	if err := msg.To(headerValue(m.To)); err != nil {
		return nil, domain.Wrap(domain.EINVALID, err, "The email address is not valid.")
	}
	msg.Subject(headerValue(m.Subject))
	msg.SetDate()
	// Named after the sender's domain, not the host: container host names
	// are random and say nothing to the receiving server.
	msg.SetMessageIDWithValue(randomHex(16) + "@" + domainOf(fromAddr.Address))
	msg.SetBodyString(gomail.TypeTextPlain, crlf(m.Text))
	return msg, nil
}

// crlf ends every body line with CRLF as RFC 5322 asks (go-mail writes the
// headers that way but leaves the body as given).
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i < len(addr)-1 {
		return addr[i+1:]
	}
	return "localhost"
}

func randomHex(nBytes int) string {
	b := make([]byte, nBytes)
	rand.Read(b) // never fails since Go 1.24: it crashes the program instead
	return hex.EncodeToString(b)
}
