package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/secure"
)

// adminCommand runs `medishare admin create --email E --firstname F --lastname L [--password-file P]`.
func adminCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("admin needs the create command: %w", errUsage)
	}
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(stdout)
	email := fs.String("email", "", "email address of the new admin")
	firstname := fs.String("firstname", "", "first name")
	lastname := fs.String("lastname", "", "last name")
	username := fs.String("username", "", "username (default: the email's local part)")
	passwordFile := fs.String("password-file", "", "read the password from this file instead of generating one")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if *email == "" || *firstname == "" || *lastname == "" {
		return fmt.Errorf("admin create needs --email, --firstname and --lastname: %w", errUsage)
	}
	if *username == "" {
		*username, _, _ = strings.Cut(*email, "@")
	}
	password, generated := "", false
	if *passwordFile != "" {
		b, err := os.ReadFile(*passwordFile)
		if err != nil {
			return err
		}
		password = strings.TrimRight(string(b), "\r\n")
	} else {
		password, generated = secure.RandomToken(18), true
	}

	prog, err := open(ctx, getenv, io.Discard)
	if err != nil {
		return err
	}
	defer prog.Close()
	user, err := prog.Services.Registration.CreateAccount(ctx, *email, *username, password, domain.RoleAdmin, *firstname, *lastname)
	if err != nil {
		return fmt.Errorf("%s%s", domain.ErrorMessage(err), fieldList(err))
	}
	if _, err := fmt.Fprintf(stdout, "Created admin %s (%s).\n", user.Email, user.ID); err != nil {
		return err
	}
	if generated {
		// Shown nowhere else: a failed write must not pass for success.
		if _, err := fmt.Fprintf(stdout, "Password (shown once, store it safely): %s\n", password); err != nil {
			return err
		}
	}
	return nil
}

func fieldList(err error) string {
	e, ok := err.(*domain.Error)
	if !ok || len(e.Fields) == 0 {
		return ""
	}
	var parts []string
	for _, f := range e.Fields {
		parts = append(parts, f.Field+": "+f.Message)
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// auditCommand runs `medishare audit verify`.
func auditCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "verify" {
		return fmt.Errorf("audit needs the verify command: %w", errUsage)
	}
	prog, err := open(ctx, getenv, io.Discard)
	if err != nil {
		return err
	}
	defer prog.Close()
	report, err := prog.Services.AuditChain.Verify(ctx)
	if err != nil {
		return err
	}
	if !report.OK {
		return fmt.Errorf("audit log broken (checked %d entries): %s", report.Checked, report.Problem)
	}
	_, err = fmt.Fprintf(stdout, "audit log intact: %d entries checked\n", report.Checked)
	return err
}

// keysCommand runs `medishare keys rotate --old-key-file F`: everything
// the old master key protects is moved to the current one
// (MEDISHARE_MASTER_KEY) by service.KeyRotationService.
func keysCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "rotate" {
		return fmt.Errorf("keys needs the rotate command: %w", errUsage)
	}
	fs := flag.NewFlagSet("keys rotate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	oldFile := fs.String("old-key-file", "", "file holding the previous master key (base64)")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if *oldFile == "" {
		return fmt.Errorf("keys rotate needs --old-key-file: %w", errUsage)
	}
	b, err := os.ReadFile(*oldFile)
	if err != nil {
		return err
	}
	oldKey, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%s: not base64", *oldFile)
	}
	prog, err := openRotating(ctx, getenv, io.Discard, oldKey)
	if err != nil {
		return err
	}
	defer prog.Close()
	n, err := prog.KeyRotation.Rotate(ctx, oldKey)
	if domain.ErrorKind(err) == domain.EINVALID {
		return errors.New(domain.ErrorMessage(err)) // names the key or the record at fault
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "re-wrapped %d file keys, %d study instance keys and %d preview keys, and re-sealed %d messages, %d analyses, %d queued mails, %d studies' patient details and %d authenticator secrets, under the current master key\n",
		n.FileKeys, n.InstanceKeys, n.PreviewKeys, n.Messages, n.Analyses, n.Mails, n.Studies, n.TOTPSecrets)
	return err
}

// contentsCommand runs `medishare contents verify`: every stored file is
// read whole and checked (each chunk, the length, the SHA-256), with
// progress on stderr; each damaged image is named on stdout, recorded and
// audited as the server's scrub does, and the command then fails.
func contentsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] != "verify" {
		return fmt.Errorf("contents needs the verify command: %w", errUsage)
	}
	prog, err := open(ctx, getenv, io.Discard)
	if err != nil {
		return err
	}
	defer prog.Close()
	total := 0
	damaged, err := prog.Services.Integrity.CheckAll(ctx, func(checked int) {
		total = checked
		if checked%100 == 0 {
			_, _ = fmt.Fprintf(stderr, "checked %d images\n", checked) // progress only
		}
	})
	for _, d := range damaged {
		if _, err := fmt.Fprintf(stdout, "damaged: image %s: %s\n", d.ImageID, d.Reason); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if len(damaged) > 0 {
		return fmt.Errorf("%d of %d images damaged", len(damaged), total)
	}
	_, err = fmt.Fprintf(stderr, "all %d images intact\n", total)
	return err
}
