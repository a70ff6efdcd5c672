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

-- The directory (domain.Directory): the users of @roles whose active flag
-- is one of @actives, and the caller (@self_id, null when a filter leaves
-- them out), in name order. Without a search the page comes through
-- users_name_idx or users_role_name_idx and the total from user_counts
-- (plus the caller when the roles leave them out). The caller's OR is a
-- filter on the rows the index brings, not a choice between access paths.

-- name: ListDirectory :many
SELECT sqlc.embed(u),
       ((SELECT coalesce(sum(c.users), 0) FROM user_counts c
         WHERE c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[]))
        + (SELECT count(*) FROM users s
           WHERE s.id = sqlc.narg('self_id')::uuid AND s.deleted_at IS NULL
             AND NOT (s.role = ANY (@roles::text[]) AND s.active = ANY (@actives::boolean[]))))::bigint AS total
FROM users u
WHERE u.deleted_at IS NULL
  AND ((u.role = ANY (@roles::text[]) AND u.active = ANY (@actives::boolean[])) OR u.id = sqlc.narg('self_id')::uuid)
ORDER BY u.lastname, u.firstname, u.id
LIMIT @page_limit OFFSET @page_offset;

-- A search walks user_grams_idx at the rarest trigram of @needle (see
-- migrations/00011_directory_grams.sql), keeping the people whose text holds
-- the whole needle, in name order, up to @probe_limit of them (searchCap): the page is
-- taken from those, and when fewer are found they are all the matches, so
-- the total is exact. A needle without a trigram (shorter than three letters
-- or digits in a row) walks users_name_idx instead, which carries the
-- searched text. Both walks read their index alone, and number the
-- matches as they come: sorting 201 names again cost more than the walk.

-- name: SearchDirectory :many
WITH needle AS (
    SELECT lower(@needle::text) AS text
), best AS (
    SELECT g.gram FROM needle, search_grams(needle.text) g(gram)
    ORDER BY coalesce((SELECT c.users FROM user_gram_counts c WHERE c.gram = g.gram), 0), g.gram
    LIMIT 1
), matches AS MATERIALIZED (
    (SELECT e.user_id AS id, row_number() OVER (ORDER BY e.lastname, e.firstname, e.user_id) AS n FROM user_grams e
     WHERE e.gram = (SELECT gram FROM best)
       AND ((e.role = ANY (@roles::text[]) AND e.active = ANY (@actives::boolean[])) OR e.user_id = sqlc.narg('self_id')::uuid)
       AND strpos(e.search_text, (SELECT text FROM needle)) > 0
     ORDER BY e.lastname, e.firstname, e.user_id
     LIMIT @probe_limit)
    UNION ALL
    (SELECT w.id, row_number() OVER (ORDER BY w.lastname, w.firstname, w.id) AS n FROM users w
     WHERE NOT EXISTS (SELECT FROM best) AND w.deleted_at IS NULL AND strpos(w.search_text, (SELECT text FROM needle)) > 0
       AND ((w.role = ANY (@roles::text[]) AND w.active = ANY (@actives::boolean[])) OR w.id = sqlc.narg('self_id')::uuid)
     ORDER BY w.lastname, w.firstname, w.id
     LIMIT @probe_limit)
), page AS (
    SELECT id, n FROM matches WHERE n > @page_offset::bigint ORDER BY n LIMIT @page_limit
)
SELECT sqlc.embed(u), (SELECT count(*) FROM matches)::bigint AS total
FROM page JOIN users u ON u.id = page.id
ORDER BY page.n;

-- name: CountDirectory :one
SELECT ((SELECT coalesce(sum(c.users), 0) FROM user_counts c
         WHERE c.role = ANY (@roles::text[]) AND c.active = ANY (@actives::boolean[]))
        + (SELECT count(*) FROM users s
           WHERE s.id = sqlc.narg('self_id')::uuid AND s.deleted_at IS NULL
             AND NOT (s.role = ANY (@roles::text[]) AND s.active = ANY (@actives::boolean[]))))::bigint AS users;


-- name: CountUsers :one
SELECT coalesce(sum(users), 0)::bigint AS users FROM user_counts;
