-- name: PutTOTPSetup :exec
-- A new setup replaces one not yet confirmed; an enabled authenticator
-- stays as it is until it is turned off.
INSERT INTO mfa_totp (user_id, sealed, created_at) VALUES (@user_id, @sealed, @created_at)
ON CONFLICT (user_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at, last_step = 0
WHERE mfa_totp.enabled_at IS NULL;

-- name: GetTOTP :one
SELECT user_id, sealed, created_at, enabled_at, last_step FROM mfa_totp WHERE user_id = @user_id;

-- name: UseTOTPStep :one
-- Accepts a code's time step only when it is later than every step
-- accepted before (one statement: a replay on another instance loses).
-- enabled says whether the authenticator must already be in force.
UPDATE mfa_totp SET last_step = @step
WHERE user_id = @user_id AND last_step < @step AND (enabled_at IS NOT NULL) = @enabled::boolean
RETURNING user_id;

-- name: EnableTOTP :one
UPDATE mfa_totp SET enabled_at = @now::timestamptz WHERE user_id = @user_id AND enabled_at IS NULL
RETURNING user_id;

-- name: DeleteTOTP :execrows
DELETE FROM mfa_totp WHERE user_id = @user_id;

-- name: TOTPNotUnder :many
-- Secrets sealed under another key than @key_id (bytes 2 to 9), for
-- `medishare keys rotate`.
SELECT user_id, sealed FROM mfa_totp WHERE substring(sealed FROM 2 FOR 8) <> @key_id::bytea ORDER BY user_id LIMIT 500;

-- name: SetTOTPSealed :exec
UPDATE mfa_totp SET sealed = @sealed WHERE user_id = @user_id;

-- name: DeleteRecoveryCodes :exec
DELETE FROM mfa_recovery_codes WHERE user_id = @user_id;

-- name: InsertRecoveryCode :exec
INSERT INTO mfa_recovery_codes (user_id, code_hash) VALUES (@user_id, @code_hash);

-- name: UseRecoveryCode :one
UPDATE mfa_recovery_codes SET used_at = @now::timestamptz
WHERE user_id = @user_id AND code_hash = @code_hash AND used_at IS NULL
RETURNING user_id;

-- name: GetMFAStatus :one
SELECT EXISTS (SELECT 1 FROM mfa_totp t WHERE t.user_id = @user_id AND t.enabled_at IS NOT NULL)::boolean AS totp,
       (SELECT count(*) FROM webauthn_credentials c WHERE c.user_id = @user_id)::int AS passkeys;

-- name: ListMFAStatus :many
SELECT u.id AS user_id,
       EXISTS (SELECT 1 FROM mfa_totp t WHERE t.user_id = u.id AND t.enabled_at IS NOT NULL)::boolean AS totp,
       (SELECT count(*) FROM webauthn_credentials c WHERE c.user_id = u.id)::int AS passkeys
FROM users u WHERE u.id = ANY(@ids::uuid[]);

-- name: InsertMFAChallenge :exec
INSERT INTO mfa_challenges (token_hash, user_id, expires_at) VALUES (@token_hash, @user_id, @expires_at);

-- name: TryMFAChallenge :one
-- Counts a try of a live challenge in one statement, so concurrent guesses
-- cannot pass the limit; a used, expired or exhausted one is not found.
UPDATE mfa_challenges SET tries = tries + 1
WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now::timestamptz AND tries < @max_tries::int
RETURNING user_id, tries, webauthn;

-- name: UseMFAChallenge :one
UPDATE mfa_challenges SET used_at = @now::timestamptz
WHERE token_hash = @token_hash AND used_at IS NULL
RETURNING user_id;

-- name: PeekMFAChallenge :one
SELECT user_id FROM mfa_challenges
WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now::timestamptz AND tries < @max_tries::int;

-- name: SetMFAChallengeWebAuthn :execrows
UPDATE mfa_challenges SET webauthn = @webauthn
WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now::timestamptz AND tries < @max_tries::int;

-- name: DeleteOldMFAChallenges :exec
DELETE FROM mfa_challenges WHERE expires_at < @before::timestamptz;

-- name: DeleteUserMFAChallenges :exec
DELETE FROM mfa_challenges WHERE user_id = @user_id;

-- name: SetUserSessionsEnrolmentOnly :exec
UPDATE sessions SET enrolment_only = @enrolment_only WHERE user_id = @user_id AND revoked_at IS NULL;

-- name: ApplyMFARequiredRoles :exec
-- The live sessions of people whose role now requires a second factor they
-- lack may only enrol; those whose role no longer requires one are let go.
UPDATE sessions s SET enrolment_only = w.enrolment_only
FROM (
  SELECT u.id,
         (u.role = ANY(@roles::text[])
          AND NOT EXISTS (SELECT 1 FROM mfa_totp t WHERE t.user_id = u.id AND t.enabled_at IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM webauthn_credentials c WHERE c.user_id = u.id)) AS enrolment_only
  FROM users u
) w
WHERE s.user_id = w.id AND s.revoked_at IS NULL AND s.enrolment_only <> w.enrolment_only;

-- name: SetSessionEnrolmentOnly :exec
UPDATE sessions SET enrolment_only = true WHERE id = @id;

-- name: ListWebAuthnCredentials :many
SELECT id, user_id, credential_id, credential, name, created_at, last_used_at FROM webauthn_credentials
WHERE user_id = @user_id ORDER BY created_at, id;

-- name: InsertWebAuthnCredential :one
INSERT INTO webauthn_credentials (user_id, credential_id, credential, name, created_at)
VALUES (@user_id, @credential_id, @credential, @name, @created_at)
RETURNING id, user_id, credential_id, credential, name, created_at, last_used_at;

-- name: RenameWebAuthnCredential :one
UPDATE webauthn_credentials SET name = @name WHERE id = @id AND user_id = @user_id
RETURNING id, user_id, credential_id, credential, name, created_at, last_used_at;

-- name: DeleteWebAuthnCredential :execrows
DELETE FROM webauthn_credentials WHERE id = @id AND user_id = @user_id;

-- name: DeleteUserWebAuthnCredentials :exec
DELETE FROM webauthn_credentials WHERE user_id = @user_id;

-- name: UpdateWebAuthnCredentialUse :exec
UPDATE webauthn_credentials SET credential = @credential, last_used_at = @now::timestamptz
WHERE user_id = @user_id AND credential_id = @credential_id;

-- name: PutWebAuthnRegistration :exec
INSERT INTO webauthn_registrations (user_id, session, expires_at) VALUES (@user_id, @session, @expires_at)
ON CONFLICT (user_id) DO UPDATE SET session = EXCLUDED.session, expires_at = EXCLUDED.expires_at;

-- name: TakeWebAuthnRegistration :one
DELETE FROM webauthn_registrations WHERE user_id = @user_id AND expires_at > @now::timestamptz
RETURNING session;

-- name: TakeMFAChallengeWebAuthn :one
-- Counts a try of a live challenge and takes its passkey ceremony's
-- session data in one statement: the row lock makes a concurrent finish
-- of the same ceremony find none, so an assertion is checked once.
UPDATE mfa_challenges c SET tries = c.tries + 1, webauthn = NULL
FROM (SELECT o.token_hash, o.webauthn FROM mfa_challenges o WHERE o.token_hash = @token_hash FOR UPDATE) old
WHERE c.token_hash = old.token_hash AND c.used_at IS NULL AND c.expires_at > @now::timestamptz AND c.tries < @max_tries::int
RETURNING c.user_id, c.tries, old.webauthn;
