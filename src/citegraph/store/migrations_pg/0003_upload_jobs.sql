-- citegraph store on PostgreSQL, schema version 3: upload jobs of `citegraph serve` (as in
-- migrations/0003_upload_jobs.sql). Kept so the version numbers match; serve reads them from SQLite only today.

CREATE TABLE upload_jobs (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    total       INTEGER NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    done        INTEGER NOT NULL DEFAULT 0,
    current     TEXT NOT NULL DEFAULT '',
    report      TEXT,                   -- JSON: the ingest report, when done
    error       TEXT NOT NULL DEFAULT '',
    pid         INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX upload_jobs_by_age ON upload_jobs (created_at);
