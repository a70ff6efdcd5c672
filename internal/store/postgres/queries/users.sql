-- name: CreateUser :one
-- The account only; Store.CreateUser writes the profile with UpdateUserProfile
-- in the same transaction, so the profile's columns are listed once.
INSERT INTO users (email, username, password_hash, role, verified, approved)
VALUES (@email, @username, @password_hash, @role, @verified, @approved)
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

-- name: SetUserApproved :one
UPDATE users SET approved = true, updated_at = now() WHERE id = @id AND deleted_at IS NULL RETURNING *;

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

-- The directory (domain.Directory): the users of @roles whose active flag
-- is one of @actives, without the providers waiting for approval when
-- @reachable_only, and the caller (@self_id, null when a filter leaves
-- them out), in name order. Without a search the page comes through
-- users_name_idx or users_role_name_idx and the total from user_counts,
-- less those waiting (users_awaiting_idx: a few rows), plus the caller
-- when the roles leave them out. The caller's OR is a filter on the rows
-- the index brings, not a choice between access paths.

-- name: ListDirectory :many
SELECT sqlc.embed(u),
       ((SELECT coalesce(sum(c.users), 0) FROM user_counts c
         WHERE c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[]))
        - (SELECT count(*) FROM users h
           WHERE NOT h.approved AND h.deleted_at IS NULL AND @reachable_only::boolean
             AND h.role = ANY (@roles::text[]) AND h.active = ANY (@actives::boolean[]))
        + (SELECT count(*) FROM users s
           WHERE s.id = sqlc.narg('self_id')::uuid AND s.deleted_at IS NULL
             AND NOT (s.role = ANY (@roles::text[]) AND s.active = ANY (@actives::boolean[])
                      AND (s.approved OR NOT @reachable_only::boolean))))::bigint AS total
FROM users u
WHERE u.deleted_at IS NULL
  AND ((u.role = ANY (@roles::text[]) AND u.active = ANY (@actives::boolean[]) AND (u.approved OR NOT @reachable_only::boolean))
       OR u.id = sqlc.narg('self_id')::uuid)
ORDER BY u.lastname, u.firstname, u.id
LIMIT @page_limit OFFSET @page_offset;

-- A search with a trigram (three ASCII letters or digits in a row) walks
-- user_grams_idx at @gram, the rarest of them (the store picks it; see
-- migrations/00011_directory_grams.sql), keeping the people whose text
-- holds the whole @needle, in name order: once for the page, and once more
-- to count the matches up to @probe_limit (searchCap and one more, or the
-- page's end and one more). Both walks read the index alone and stop at
-- their limit; the page's rows are then read by key. With @reachable_only
-- they pass over the providers waiting for approval, whose ids are read
-- once from users_awaiting_idx and hashed, so the walks stay index-only.

-- name: SearchDirectory :many
WITH page AS (
    SELECT e.user_id FROM user_grams e
    WHERE e.gram = @gram::text
      AND ((e.role = ANY (@roles::text[]) AND e.active = ANY (@actives::boolean[])
            AND NOT (@reachable_only::boolean AND e.user_id IN (SELECT h.id FROM users h WHERE NOT h.approved AND h.deleted_at IS NULL)))
           OR e.user_id = sqlc.narg('self_id')::uuid)
      AND strpos(e.search_text, (SELECT lower(@needle::text))) > 0
    ORDER BY e.lastname, e.firstname, e.user_id
    LIMIT @page_limit OFFSET @page_offset
)
SELECT sqlc.embed(u),
       (SELECT count(*) FROM (
           SELECT 1 FROM user_grams c
           WHERE c.gram = @gram::text
             AND ((c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[])
                   AND NOT (@reachable_only::boolean AND c.user_id IN (SELECT h.id FROM users h WHERE NOT h.approved AND h.deleted_at IS NULL)))
                  OR c.user_id = sqlc.narg('self_id')::uuid)
             AND strpos(c.search_text, (SELECT lower(@needle::text))) > 0
           LIMIT @probe_limit) n)::bigint AS total
FROM users u
WHERE u.id = ANY (ARRAY(SELECT user_id FROM page)) -- by key, whatever a generic plan guesses of the page's size
ORDER BY u.lastname, u.firstname, u.id;

-- name: SearchGramCounts :many
-- The counts of the trigrams a search can walk (see the store's gramCounts).
SELECT gram, users FROM user_gram_counts WHERE gram ~ '^[a-z0-9]{3}$' AND users > 0;

-- A search without a trigram (one or two letters, or letters split by
-- spaces or punctuation) walks users_name_idx, which carries the searched
-- text, the same way: such fragments are common, so the walk soon meets
-- enough of them.

-- name: SearchDirectoryByName :many
WITH page AS (
    SELECT w.id FROM users w
    WHERE w.deleted_at IS NULL AND strpos(w.search_text, (SELECT lower(@needle::text))) > 0
      AND ((w.role = ANY (@roles::text[]) AND w.active = ANY (@actives::boolean[])
            AND NOT (@reachable_only::boolean AND w.id IN (SELECT h.id FROM users h WHERE NOT h.approved AND h.deleted_at IS NULL)))
           OR w.id = sqlc.narg('self_id')::uuid)
    ORDER BY w.lastname, w.firstname, w.id
    LIMIT @page_limit OFFSET @page_offset
)
SELECT sqlc.embed(u),
       (SELECT count(*) FROM (
           SELECT 1 FROM users c
           WHERE c.deleted_at IS NULL AND strpos(c.search_text, (SELECT lower(@needle::text))) > 0
             AND ((c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[])
                   AND NOT (@reachable_only::boolean AND c.id IN (SELECT h.id FROM users h WHERE NOT h.approved AND h.deleted_at IS NULL)))
                  OR c.id = sqlc.narg('self_id')::uuid)
           LIMIT @probe_limit) n)::bigint AS total
FROM users u
WHERE u.id = ANY (ARRAY(SELECT id FROM page))
ORDER BY u.lastname, u.firstname, u.id;

-- name: CountDirectory :one
SELECT ((SELECT coalesce(sum(c.users), 0) FROM user_counts c
         WHERE c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[]))
        - (SELECT count(*) FROM users h
           WHERE NOT h.approved AND h.deleted_at IS NULL AND @reachable_only::boolean
             AND h.role = ANY (@roles::text[]) AND h.active = ANY (@actives::boolean[]))
        + (SELECT count(*) FROM users s
           WHERE s.id = sqlc.narg('self_id')::uuid AND s.deleted_at IS NULL
             AND NOT (s.role = ANY (@roles::text[]) AND s.active = ANY (@actives::boolean[])
                      AND (s.approved OR NOT @reachable_only::boolean))))::bigint AS users;


-- name: CountUsers :one
SELECT coalesce(sum(users), 0)::bigint AS users FROM user_counts;
