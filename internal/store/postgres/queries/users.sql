-- name: CreateUser :one
-- The account only; Store.CreateUser writes the profile with UpdateUserProfile
-- in the same transaction, so the profile's columns are listed once.
INSERT INTO users (email, username, password_hash, role, verified)
VALUES (@email, @username, @password_hash, @role, @verified)
RETURNING id;

-- name: GetUserByID :one
SELECT * FROM users WHERE id = $1 AND deleted_at IS NULL;

-- name: GetUserByEmail :one
SELECT * FROM users WHERE email = $1 AND deleted_at IS NULL;

-- name: UsernameTaken :one
SELECT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower(@username)) AS taken;

-- name: SetUserVerified :exec
UPDATE users SET verified = true, updated_at = now() WHERE id = $1;

-- name: SetUserPassword :exec
UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1;

-- name: UpdateUserProfile :one
UPDATE users SET
    firstname = @firstname, lastname = @lastname, phone = @phone, dob = @dob, gender = @gender,
    address = @address, city = @city, state = @state, country = @country, zipcode = @zipcode,
    bio = @bio, taxid = @taxid, licensenumber = @licensenumber, insurancenumber = @insurancenumber,
    bloodgroup = @bloodgroup, primphysician = @primphysician, specialization = @specialization,
    updated_at = now()
WHERE id = @id AND deleted_at IS NULL
RETURNING *;

-- name: SetUserActive :one
UPDATE users SET active = @active, updated_at = now() WHERE id = @id AND deleted_at IS NULL RETURNING *;

-- name: SetUserRole :one
UPDATE users SET role = @role, updated_at = now() WHERE id = @id AND deleted_at IS NULL RETURNING *;

-- name: EraseUser :exec
-- Deactivates the account and erases its profile; the row stays for records
-- and audit entries. The email and username are freed with a unique tombstone.
UPDATE users SET
    active = false, deleted_at = now(), updated_at = now(),
    email = 'deleted-' || id || '@deleted.invalid', username = 'deleted-' || id,
    password_hash = '', firstname = 'Deleted', lastname = 'User', phone = '', dob = NULL,
    gender = NULL, address = '', city = '', state = '', country = '', zipcode = '', bio = '',
    taxid = '', licensenumber = '', insurancenumber = '', bloodgroup = '', primphysician = '',
    specialization = ''
WHERE id = $1;

-- name: CountActiveAdmins :one
SELECT count(*) FROM users WHERE role = 'admin' AND active AND deleted_at IS NULL;

-- name: LockAdmins :exec
-- Serialises changes that could remove the last active admin.
SELECT pg_advisory_xact_lock(727003);

-- name: ListUsers :many
-- One page of a directory (domain.Directory): the caller, and the users of
-- @roles (any role when @any_role), active ones only when @active_only.
-- @search matches first name, last name or email; its LIKE wildcards are
-- escaped by the caller.
SELECT sqlc.embed(u), count(*) OVER () AS total
FROM users u
WHERE u.deleted_at IS NULL
  AND (u.id = @caller_id
       OR ((@any_role::boolean OR u.role = ANY (@roles::text[])) AND (u.active OR NOT @active_only::boolean)))
  AND (@role::text = '' OR u.role = @role::text)
  AND (@search::text = ''
       OR u.firstname ILIKE '%' || @search::text || '%'
       OR u.lastname ILIKE '%' || @search::text || '%'
       OR (u.firstname || ' ' || u.lastname) ILIKE '%' || @search::text || '%'
       OR u.email ILIKE '%' || @search::text || '%')
ORDER BY u.lastname, u.firstname, u.id
LIMIT @page_limit OFFSET @page_offset;

-- name: CountUsers :one
SELECT count(*) FROM users WHERE deleted_at IS NULL;
