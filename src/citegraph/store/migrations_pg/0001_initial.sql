-- citegraph store on PostgreSQL, schema version 1: the tables of migrations/0001_initial.sql in
-- PostgreSQL's types. Identifiers and keys compare byte by byte (COLLATE "C"), so every ORDER BY
-- gives the order SQLite and Python give, whatever the server's locale.
-- Vectors are bytea holding float32, as in SQLite; search runs in Python (see postgres.py).

CREATE TABLE documents (
    doc_id      TEXT COLLATE "C" NOT NULL,
    version     TEXT COLLATE "C" NOT NULL,  -- sha256 prefix of text
    label       TEXT,                       -- optional --version label
    source      TEXT NOT NULL,
    media_type  TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    text        TEXT NOT NULL,
    current     BOOLEAN NOT NULL,
    extractor   TEXT NOT NULL,
    status      TEXT NOT NULL,
    seq         BIGINT GENERATED ALWAYS AS IDENTITY,  -- ingest order (SQLite's rowid)
    PRIMARY KEY (doc_id, version)
);
CREATE UNIQUE INDEX one_current_version ON documents (doc_id) WHERE current;

CREATE TABLE document_access (
    doc_id  TEXT COLLATE "C" NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    label   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (doc_id, version, label),
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);

CREATE TABLE spans (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id     TEXT COLLATE "C" NOT NULL,
    version    TEXT COLLATE "C" NOT NULL,
    start_char INTEGER NOT NULL,
    end_char   INTEGER NOT NULL,
    text       TEXT NOT NULL,
    kind       TEXT NOT NULL,              -- 'sentence' | 'imported'
    vector     BYTEA NOT NULL,             -- float32, L2-normalised
    UNIQUE (doc_id, version, start_char, end_char),
    CHECK (0 <= start_char AND start_char < end_char),
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);

CREATE TABLE entities (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key         TEXT COLLATE "C" NOT NULL UNIQUE,  -- writers race on a key with INSERT ... ON CONFLICT DO NOTHING
    key_vector  BYTEA NOT NULL
);

CREATE TABLE mentions (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    entity_id   BIGINT NOT NULL REFERENCES entities (id),
    span_id     BIGINT NOT NULL REFERENCES spans (id) ON DELETE CASCADE,
    start_char  INTEGER,
    end_char    INTEGER,
    surface     TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    inferred    BOOLEAN NOT NULL DEFAULT FALSE,
    extractor   TEXT NOT NULL
);
CREATE INDEX mentions_entity ON mentions (entity_id);
CREATE INDEX mentions_span ON mentions (span_id);

CREATE TABLE relations (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id   BIGINT NOT NULL REFERENCES entities (id),
    target_id   BIGINT NOT NULL REFERENCES entities (id),
    type        TEXT NOT NULL,
    span_id     BIGINT NOT NULL REFERENCES spans (id) ON DELETE CASCADE,
    source_name TEXT NOT NULL DEFAULT '',
    target_name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    extractor   TEXT NOT NULL,
    UNIQUE (source_id, target_id, type, span_id)
);
CREATE INDEX relations_source ON relations (source_id);
CREATE INDEX relations_target ON relations (target_id);
CREATE INDEX relations_span ON relations (span_id);

CREATE TABLE rejections (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id  TEXT COLLATE "C" NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    kind    TEXT NOT NULL,
    reason  TEXT NOT NULL,
    detail  TEXT NOT NULL,
    record  TEXT NOT NULL,
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);
CREATE INDEX rejections_document ON rejections (doc_id, version);

-- Bumped by every write transaction just before it commits: change_token() reads it, so a cache in
-- any process sees any other connection's commit.
CREATE TABLE changes (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    n   BIGINT NOT NULL
);
INSERT INTO changes (n) VALUES (0);
