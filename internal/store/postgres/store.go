package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/store/postgres/db"
)

// Store is every repository over one database. Methods run in the
// transaction carried by ctx (see InTx), or on their own otherwise.
type Store struct {
	db    *DB
	grams gramCounts
	chain domain.AuditHasher // the audit chain's hashes (UseAuditChain)
}

// NewStore returns the repositories of d.
func NewStore(d *DB) *Store { return &Store{db: d} }

type txKey struct{}

// conn is what a call runs on: the transaction in ctx, or the pool.
func (s *Store) conn(ctx context.Context) interface {
	db.DBTX
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
} {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return s.db.Pool
}

// q is the generated queries, on conn.
func (s *Store) q(ctx context.Context) *db.Queries { return db.New(s.conn(ctx)) }

// InTx runs fn in one transaction: every Store call made with the ctx it
// receives joins it, so a change and its audit entry commit together (S19).
// Nested calls join the outer transaction.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return fn(ctx)
	}
	err := pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return translate(err)
}

func parseID(id string) (uuid.UUID, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, domain.Errorf(domain.ENOTFOUND, "Not found.")
	}
	return u, nil
}

func optionalID(id string) pgtype.UUID {
	u, err := uuid.Parse(id)
	if err != nil {
		return pgtype.UUID{}
	}
	return pgtype.UUID{Bytes: u, Valid: true}
}

func dateOf(s string) (pgtype.Date, error) {
	if s == "" {
		return pgtype.Date{}, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return pgtype.Date{}, domain.ValidationError("Please check the highlighted fields.", domain.FieldError{Field: "dob", Message: "must be a date (YYYY-MM-DD)"})
	}
	return pgtype.Date{Time: t, Valid: true}, nil
}

// dateOfTime is the calendar day of t, in t's own location.
func dateOfTime(t time.Time) pgtype.Date {
	return pgtype.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

func textOf(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

func toUser(u db.User) domain.User {
	out := domain.User{
		ID: u.ID.String(), Email: u.Email, Username: u.Username, Role: u.Role, Active: u.Active,
		Verified: u.Verified, AwaitingApproval: !u.Approved, CreatedAt: u.CreatedAt,
		Profile: domain.Profile{
			Firstname: u.Firstname, Lastname: u.Lastname, Phone: u.Phone, Gender: u.Gender.String,
			Address: u.Address, City: u.City, State: u.State, Country: u.Country, Zipcode: u.Zipcode,
			Bio: u.Bio, TaxID: u.Taxid, LicenseNumber: u.Licensenumber, InsuranceNumber: u.Insurancenumber,
			Specialization: u.Specialization, BloodGroup: u.Bloodgroup, PrimPhysician: u.Primphysician,
		},
	}
	if u.Dob.Valid {
		out.DOB = u.Dob.Time.Format("2006-01-02")
	}
	return out
}
