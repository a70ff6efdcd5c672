package secure

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/medishare/medishare/internal/domain"
)

// AuditChain computes the audit log's hashes (S20) under a key the
// database never holds in the clear: each entry's hash is an HMAC of the
// hash before it and the entry's every field, so whoever can change the
// database but not read the key cannot write an entry, or a hash, that
// verifies. Checkpoints of the chain's head, kept outside the database,
// are signed with the same key.
type AuditChain struct {
	key []byte
}

// AuditChainKeySize is the length of the chain's key.
const AuditChainKeySize = 32

// NewAuditChainKey returns a fresh random key for the chain.
func NewAuditChainKey() []byte {
	key := make([]byte, AuditChainKeySize)
	if _, err := rand.Read(key); err != nil {
		panic(fmt.Sprintf("secure: random: %v", err)) // crypto/rand does not fail on supported systems
	}
	return key
}

// NewAuditChain returns the chain under key.
// Errors: EINVALID when key is not AuditChainKeySize bytes.
func NewAuditChain(key []byte) (*AuditChain, error) {
	if len(key) != AuditChainKeySize {
		return nil, domain.Errorf(domain.EINVALID, "the audit chain's key must be %d bytes, not %d", AuditChainKeySize, len(key))
	}
	return &AuditChain{key: append([]byte(nil), key...)}, nil
}

// auditTime is how an entry's time enters its hash: UTC, microseconds
// (the database's precision).
const auditTime = "2006-01-02T15:04:05.000000Z"

// Hash returns what l's hash must be, given l.PrevHash: keyed for
// domain.ChainKeyed, the legacy digest for domain.ChainLegacy.
// Errors: EINVALID for any other chain.
func (c *AuditChain) Hash(l domain.AuditLink) ([]byte, error) {
	switch l.Chain {
	case domain.ChainKeyed:
		m := hmac.New(sha256.New, c.key)
		writeFields(m, "entry", string(l.PrevHash), strconv.FormatInt(l.ID, 10), l.CreatedAt.UTC().Format(auditTime),
			l.ActorID, l.Action, l.Table, l.RecordID, l.IP, l.UserAgent, l.Status, l.Reason)
		return m.Sum(nil), nil
	case domain.ChainLegacy:
		return LegacyAuditDigest(l), nil
	}
	return nil, domain.Errorf(domain.EINVALID, "audit entry %d: unknown chain %d", l.ID, l.Chain)
}

// LegacyAuditDigest is the digest the database computed before the chain
// was keyed: SHA-256 of the previous hash and the entry's fields as the
// text of a Postgres jsonb array. Entries written then keep it.
func LegacyAuditDigest(l domain.AuditLink) []byte {
	var b strings.Builder
	b.WriteString("[" + strconv.FormatInt(l.ID, 10) + ", ")
	jsonbString(&b, l.CreatedAt.UTC().Format(auditTime))
	b.WriteString(", ")
	if l.ActorID == "" {
		b.WriteString("null")
	} else {
		jsonbString(&b, l.ActorID)
	}
	for _, f := range []string{l.Action, l.Table, l.RecordID, l.IP, l.UserAgent, l.Status, l.Reason} {
		b.WriteString(", ")
		jsonbString(&b, f)
	}
	b.WriteString("]")
	sum := sha256.Sum256(append(append([]byte(nil), l.PrevHash...), b.String()...))
	return sum[:]
}

// jsonbString writes s quoted as Postgres writes a jsonb string (its
// escape_json): the usual short escapes, other control characters as
// \u00xx, everything else as it is.
func jsonbString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < ' ' {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// checkpointJSON is a checkpoint as it is stored.
type checkpointJSON struct {
	ID            int64  `json:"id"`
	Hash          string `json:"hash"`
	LegacyThrough int64  `json:"legacyThrough"`
	At            string `json:"at"`
	MAC           string `json:"mac"`
}

func (c *AuditChain) checkpointMAC(cp domain.AuditCheckpoint) []byte {
	m := hmac.New(sha256.New, c.key)
	writeFields(m, "checkpoint", strconv.FormatInt(cp.ID, 10), string(cp.Hash), strconv.FormatInt(cp.LegacyThrough, 10),
		cp.At.UTC().Format(time.RFC3339Nano))
	return m.Sum(nil)
}

// SealCheckpoint returns cp as stored: JSON, signed.
func (c *AuditChain) SealCheckpoint(cp domain.AuditCheckpoint) []byte {
	b, err := json.Marshal(checkpointJSON{ID: cp.ID, Hash: hex.EncodeToString(cp.Hash), LegacyThrough: cp.LegacyThrough,
		At: cp.At.UTC().Format(time.RFC3339Nano), MAC: hex.EncodeToString(c.checkpointMAC(cp))})
	if err != nil {
		panic(fmt.Sprintf("secure: checkpoint: %v", err)) // a struct of strings and numbers always encodes
	}
	return b
}

// OpenCheckpoint reads a stored checkpoint and checks its signature.
// Errors: EINVALID when it is not one, or was not signed with this key.
func (c *AuditChain) OpenCheckpoint(b []byte) (domain.AuditCheckpoint, error) {
	var j checkpointJSON
	bad := domain.Errorf(domain.EINVALID, "The audit log's checkpoint is not one the server signed.")
	if err := json.Unmarshal(b, &j); err != nil {
		return domain.AuditCheckpoint{}, bad
	}
	hash, err1 := hex.DecodeString(j.Hash)
	mac, err2 := hex.DecodeString(j.MAC)
	at, err3 := time.Parse(time.RFC3339Nano, j.At)
	if err1 != nil || err2 != nil || err3 != nil {
		return domain.AuditCheckpoint{}, bad
	}
	cp := domain.AuditCheckpoint{ID: j.ID, Hash: hash, LegacyThrough: j.LegacyThrough, At: at}
	if !hmac.Equal(mac, c.checkpointMAC(cp)) {
		return domain.AuditCheckpoint{}, bad
	}
	return cp, nil
}
