-- citegraph store, schema version 1.
-- Provenance is never flattened: an entity is a key plus a list of mentions (one row per span that
-- supports it), and relations are rows (a multigraph), each with the span of the sentence that
-- asserted it. Document versions are kept; a newer version marks the older one not current.

CREATE TABLE documents (
    doc_id      TEXT NOT NULL,
    version     TEXT NOT NULL,          -- sha256 prefix of text
    label       TEXT,                   -- optional --version label
    source      TEXT NOT NULL,
    media_type  TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    text        TEXT NOT NULL,
    current     INTEGER NOT NULL CHECK (current IN (0, 1)),
    extractor   TEXT NOT NULL,
    status      TEXT NOT NULL,
    PRIMARY KEY (doc_id, version)
);
CREATE UNIQUE INDEX one_current_version ON documents (doc_id) WHERE current = 1;

CREATE TABLE document_access (
    doc_id  TEXT NOT NULL,
    version TEXT NOT NULL,
    label   TEXT NOT NULL,
    PRIMARY KEY (doc_id, version, label),
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);

CREATE TABLE spans (
    id         INTEGER PRIMARY KEY,
    doc_id     TEXT NOT NULL,
    version    TEXT NOT NULL,
    start_char INTEGER NOT NULL,
    end_char   INTEGER NOT NULL,
    text       TEXT NOT NULL,
    kind       TEXT NOT NULL,          -- 'sentence' (from the splitter) | 'imported' (located source_sentence)
    vector     BLOB NOT NULL,          -- float32, L2-normalised
    UNIQUE (doc_id, version, start_char, end_char),
    CHECK (0 <= start_char AND start_char < end_char),
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);

CREATE TABLE entities (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    key_vector  BLOB NOT NULL           -- embedding of the key; sentence vectors are added per view
);

CREATE TABLE mentions (
    id          INTEGER PRIMARY KEY,
    entity_id   INTEGER NOT NULL REFERENCES entities (id),
    span_id     INTEGER NOT NULL REFERENCES spans (id) ON DELETE CASCADE,
    start_char  INTEGER,               -- the mention inside the document, when known
    end_char    INTEGER,
    surface     TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    inferred    INTEGER NOT NULL DEFAULT 0,
    extractor   TEXT NOT NULL
);
CREATE INDEX mentions_entity ON mentions (entity_id);
CREATE INDEX mentions_span ON mentions (span_id);

CREATE TABLE relations (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES entities (id),
    target_id   INTEGER NOT NULL REFERENCES entities (id),
    type        TEXT NOT NULL,
    span_id     INTEGER NOT NULL REFERENCES spans (id) ON DELETE CASCADE,
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
    id      INTEGER PRIMARY KEY,
    doc_id  TEXT NOT NULL,
    version TEXT NOT NULL,
    kind    TEXT NOT NULL,
    reason  TEXT NOT NULL,
    detail  TEXT NOT NULL,
    record  TEXT NOT NULL,
    FOREIGN KEY (doc_id, version) REFERENCES documents (doc_id, version) ON DELETE CASCADE
);
