-- +goose Up
-- AI analyses of images (api.md, AI analysis). Each run is kept: the newest
-- of an image is its current analysis, the others its history. The result
-- (description, findings, measurements) is sealed like a message's text
-- (secure.TextSealer, bound to the analysis id); provider and model stay
-- readable for the audit and the history.
CREATE TABLE analyses (
    id           uuid        PRIMARY KEY,
    image_id     uuid        NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    requested_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    provider     text        NOT NULL,
    model        text        NOT NULL,
    sealed       bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX analyses_image_idx ON analyses (image_id, created_at DESC, id);

-- +goose Down
DROP TABLE analyses;
