-- citegraph store, schema version 6: what a document's structure says of a sentence it does not
-- assert (citegraph.ingest.structure): a code block, struck-through text, a section headed as
-- myths or deprecated, text a preceding sentence frames. Read at ingest, from the whole text, and
-- kept with the span; '' for an asserted sentence, and for every span stored before this migration.

ALTER TABLE spans ADD COLUMN frame TEXT NOT NULL DEFAULT '';
