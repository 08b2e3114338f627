-- The bench table of benches/db_load.sh: :rows invoices of the demo's shape (`toolwire demo`:
-- id, client {name, email}, amount_cents, currency, status, issued_at) made by PostgreSQL
-- itself from generate_series in one INSERT, so 10M rows take a minute, not an hour of
-- client round trips. Every value is a hash of the row number (hashint8extended with a seed
-- per column), so each run makes the same rows. The demo's 12 clients (quotes, a pipe,
-- umlauts, Japanese) keep the text realistic for the token counts; a quarter of the rows are
-- `overdue`, and the index on (status, id) is the one the bench's `where` walks in key order.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS invoices;
CREATE TABLE invoices (
    id text NOT NULL,
    client jsonb,
    amount_cents integer NOT NULL,
    currency text NOT NULL,
    status text NOT NULL,
    issued_at text
);
-- h(i, seed, m): a value in [0, m) drawn from row i.
CREATE FUNCTION pg_temp.h(i bigint, seed bigint, m bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$ SELECT ((hashint8extended(i, seed) % m) + m) % m $$;
INSERT INTO invoices
SELECT 'INV-' || lpad(i::text, greatest(7, length(i::text)), '0'),
       (ARRAY[
         '{"name": "Acme Corp", "email": "billing@acme.example"}',
         '{"name": "Globex", "email": "ap@globex.example"}',
         '{"name": "Initech, Ltd", "email": "invoices@initech.example"}',
         '{"name": "Umbrella \"Health\"", "email": "finance@umbrella.example"}',
         '{"name": "Stark Industries", "email": "ap@stark.example"}',
         '{"name": "Wayne Enterprises", "email": "billing@wayne.example"}',
         '{"name": "Hooli", "email": "pay@hooli.example"}',
         '{"name": "Soylent | Foods", "email": "ap@soylent.example"}',
         '{"name": "Tyrell Corporation", "email": "billing@tyrell.example"}',
         '{"name": "Cyberdyne Systems", "email": "ap@cyberdyne.example"}',
         '{"name": "Müller & Söhne GmbH", "email": "rechnung@mueller.example"}',
         '{"name": "株式会社サンプル", "email": "keiri@sample.example"}'
       ]::jsonb[])[pg_temp.h(i, 1, 12) + 1],
       100 + pg_temp.h(i, 2, 5000000),
       (ARRAY['EUR', 'USD', 'GBP', 'JPY'])[pg_temp.h(i, 3, 4) + 1],
       (ARRAY['paid', 'paid', 'pending', 'overdue'])[pg_temp.h(i, 4, 4) + 1],
       format('2026-%s-%sT%s:%s:00Z',
              lpad((1 + pg_temp.h(i, 5, 12))::text, 2, '0'),
              lpad((1 + pg_temp.h(i, 6, 28))::text, 2, '0'),
              lpad(pg_temp.h(i, 7, 24)::text, 2, '0'),
              lpad(pg_temp.h(i, 8, 60)::text, 2, '0'))
FROM generate_series(1, :rows) AS i;
-- The indexes after the rows: one sort each instead of 10M index insertions.
ALTER TABLE invoices ADD PRIMARY KEY (id);
CREATE INDEX invoices_status ON invoices (status, id);
VACUUM ANALYZE invoices;
