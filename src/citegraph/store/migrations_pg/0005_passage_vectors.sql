-- citegraph store on PostgreSQL, schema version 5 (as migrations/0005_passage_vectors.sql): one
-- vector per document version, of its whole text, made at ingest; NULL for a version stored before
-- this migration (a view embeds those itself).

ALTER TABLE documents ADD COLUMN passage_vector BYTEA;  -- float32, L2-normalised; NULL: not stored
