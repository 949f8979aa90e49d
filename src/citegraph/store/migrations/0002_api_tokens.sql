-- citegraph store, schema version 2: API tokens for `citegraph serve`.
-- A token is stored only as its sha256; the labels it grants are a JSON list. A revoked token stays,
-- marked, so `citegraph token list` can say when it was revoked.

CREATE TABLE api_tokens (
    name        TEXT PRIMARY KEY,
    digest      TEXT NOT NULL UNIQUE,   -- sha256 hex of the token
    labels      TEXT NOT NULL,          -- JSON list of access labels
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
);
