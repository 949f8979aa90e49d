-- citegraph store on PostgreSQL, schema version 2: API tokens for `citegraph serve` (as in
-- migrations/0002_api_tokens.sql). Kept so the version numbers match; serve reads them from SQLite only today.

CREATE TABLE api_tokens (
    name        TEXT PRIMARY KEY,
    digest      TEXT NOT NULL UNIQUE,   -- sha256 hex of the token
    labels      TEXT NOT NULL,          -- JSON list of access labels
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
);
