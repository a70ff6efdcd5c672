-- +goose Up
-- The directory search in name order that reads only what it shows, however
-- many people match (docs/architecture.md, "Lists").
--
-- user_grams holds, for every person not deleted, each trigram (three
-- letters or digits) inside a word of their searched text, with their name
-- and what the directory's scope filters on. Everyone whose text contains
-- "nders" has the trigram "nde", so walking user_grams_idx at "nde" meets
-- them in name order among a few others, which the search then drops: the
-- page and the capped count read about as many entries as they return. The
-- trigram walked is the needle's rarest, from user_gram_counts. (A trigram
-- index cannot do this: it finds every match, in no order, before the
-- first page.) The triggers below are the only writers of both tables.
CREATE TABLE user_grams (
    gram        text    NOT NULL,
    lastname    text    NOT NULL,
    firstname   text    NOT NULL,
    user_id     uuid    NOT NULL,
    role        text    NOT NULL,
    active      boolean NOT NULL,
    search_text text    NOT NULL
);

CREATE TABLE user_gram_counts (
    gram  text PRIMARY KEY,
    users integer NOT NULL
);

-- The trigrams inside the words of t, as pg_trgm finds words (the ones it
-- pads at a word's edges are left out: a search's fragment may begin or end
-- anywhere in a word). show_trgm gives each once. Not strict, so that a
-- query can inline it.
-- +goose StatementBegin
CREATE FUNCTION search_grams(t text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT g FROM unnest(show_trgm(t)) g WHERE strpos(g, ' ') = 0
$$;
-- +goose StatementEnd

-- Takes out the entries in gone and puts in those in added, keeping the
-- counts; counts change in trigram order, so that concurrent changes lock
-- them in the same order.
-- +goose StatementBegin
CREATE FUNCTION user_grams_apply(gone user_grams[], added user_grams[]) RETURNS void
LANGUAGE sql AS $$
    WITH removed AS (
        DELETE FROM user_grams g USING unnest(gone) x
        WHERE (g.gram, g.lastname, g.firstname, g.user_id) = (x.gram, x.lastname, x.firstname, x.user_id)
        RETURNING g.gram
    ), inserted AS (
        INSERT INTO user_grams SELECT * FROM unnest(added) RETURNING gram
    ), delta AS (
        SELECT gram, sum(d)::integer AS d
        FROM (SELECT gram, -1 AS d FROM removed UNION ALL SELECT gram, 1 FROM inserted) x
        GROUP BY gram HAVING sum(d) <> 0
    )
    INSERT INTO user_gram_counts AS c (gram, users)
    SELECT gram, d FROM delta ORDER BY gram
    ON CONFLICT (gram) DO UPDATE SET users = c.users + excluded.users
$$;
-- +goose StatementEnd

-- Statement triggers with transition tables, so that a bulk insert costs
-- one pass (the benchmarks seed 100,000 people in a few statements). An
-- update changes the entries only of the people whose name, email, role,
-- active flag or deletion changed.
-- +goose StatementBegin
CREATE FUNCTION user_grams_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM user_grams_apply('{}', ARRAY(
            SELECT ROW(g, n.lastname, n.firstname, n.id, n.role, n.active, n.search_text)::user_grams
            FROM new_rows n, search_grams(n.search_text) g WHERE n.deleted_at IS NULL));
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM user_grams_apply(
            ARRAY(SELECT ROW(g, o.lastname, o.firstname, o.id, o.role, o.active, o.search_text)::user_grams
                  FROM old_rows o JOIN new_rows n ON n.id = o.id, search_grams(o.search_text) g
                  WHERE o.deleted_at IS NULL
                    AND (o.search_text, o.lastname, o.firstname, o.role, o.active, o.deleted_at)
                        IS DISTINCT FROM (n.search_text, n.lastname, n.firstname, n.role, n.active, n.deleted_at)),
            ARRAY(SELECT ROW(g, n.lastname, n.firstname, n.id, n.role, n.active, n.search_text)::user_grams
                  FROM new_rows n JOIN old_rows o ON o.id = n.id, search_grams(n.search_text) g
                  WHERE n.deleted_at IS NULL
                    AND (o.search_text, o.lastname, o.firstname, o.role, o.active, o.deleted_at)
                        IS DISTINCT FROM (n.search_text, n.lastname, n.firstname, n.role, n.active, n.deleted_at)));
    ELSE
        PERFORM user_grams_apply(ARRAY(
            SELECT ROW(g, o.lastname, o.firstname, o.id, o.role, o.active, o.search_text)::user_grams
            FROM old_rows o, search_grams(o.search_text) g WHERE o.deleted_at IS NULL), '{}');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER users_grams_insert AFTER INSERT ON users
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_grams_sync();
CREATE TRIGGER users_grams_update AFTER UPDATE ON users
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_grams_sync();
CREATE TRIGGER users_grams_delete AFTER DELETE ON users
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_grams_sync();

INSERT INTO user_grams
SELECT g, u.lastname, u.firstname, u.id, u.role, u.active, u.search_text
FROM users u, search_grams(u.search_text) g WHERE u.deleted_at IS NULL;
INSERT INTO user_gram_counts SELECT gram, count(*) FROM user_grams GROUP BY gram;
-- The searched text rides along, so that a walk checks the whole fragment
-- without visiting the person's row.
CREATE INDEX user_grams_idx ON user_grams (gram, lastname, firstname, user_id) INCLUDE (search_text, role, active);

-- +goose Down
DROP TRIGGER users_grams_delete ON users;
DROP TRIGGER users_grams_update ON users;
DROP TRIGGER users_grams_insert ON users;
DROP FUNCTION user_grams_sync();
DROP FUNCTION user_grams_apply(user_grams[], user_grams[]);
DROP FUNCTION search_grams(text);
DROP TABLE user_gram_counts;
DROP TABLE user_grams;
