-- citegraph store, schema version 5: one vector per document version, of its whole text (its
-- sentences joined in order, cut at citegraph.sentences.PASSAGE_CHARS), made at ingest with the
-- sentence vectors, so a passage-level retrieval mode (dense-passage, bridge) does not embed every
-- visible passage when a caller's view is first read. NULL for a version stored before this
-- migration: a view embeds those itself.

ALTER TABLE documents ADD COLUMN passage_vector BLOB;  -- float32, L2-normalised; NULL: not stored
