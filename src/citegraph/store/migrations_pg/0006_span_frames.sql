-- citegraph store on PostgreSQL, schema version 6 (as migrations/0006_span_frames.sql): what a
-- document's structure says of a sentence it does not assert, kept with the span; '' for an asserted
-- sentence, and for every span stored before this migration.

ALTER TABLE spans ADD COLUMN frame TEXT NOT NULL DEFAULT '';
