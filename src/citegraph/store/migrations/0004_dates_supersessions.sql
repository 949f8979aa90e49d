-- citegraph store, schema version 4: which source is current. A document may give its own date
-- (front matter `date:`/`updated:`, an HTML meta date, a PDF's date, or `ingest --date`), and a
-- document may be superseded by another one (`citegraph supersede OLD --by NEW`, or `supersedes:`
-- in the new one's front matter): every version of OLD is then left out of retrieval like an old
-- version, unless the caller asks for superseded documents.

ALTER TABLE documents ADD COLUMN dated TEXT;  -- ISO 8601 day the document gives itself; NULL when it gives none

CREATE TABLE supersessions (
    old_id    TEXT NOT NULL PRIMARY KEY,   -- a document id (all its versions)
    new_id    TEXT NOT NULL,               -- the document that replaces it
    marked_at TEXT NOT NULL,               -- when it was marked (ISO 8601 UTC)
    CHECK (old_id != new_id)
);
CREATE INDEX supersessions_new ON supersessions (new_id);
