/**
 * Tables owned by the analysis domain: securities and their daily bars (the input), and the stored
 * analysis snapshots with a log of the pipeline runs that wrote them (the output).
 *
 * - `analysis_snapshots`: one JSON document per symbol per calendar date (the shape is
 *   engine/document.ts). The primary key (symbol, analysis_date) serves the reads of one symbol: its
 *   latest snapshot is a backward scan of that key, a date is a point lookup, a date range a forward
 *   scan. The index on (analysis_date, symbol) serves the universe-wide reads: the newest date stored
 *   and every symbol's snapshot on one date (what allocation and search start from).
 * - `analysis_runs`: one row per pipeline run (dates covered, counts, the fitted model summary and
 *   the stage-transition estimate), so a reader can tell how fresh and how complete the snapshots are.
 * - `evidence_runs`: one row per evaluation (`tradegraph evaluate`): the pipeline version of the
 *   snapshots it measured, its as-of date (the last snapshot date whose outcome at the longest horizon
 *   was known), the snapshot dates it covered, horizons and seed, and the evaluation itself as jsonb
 *   (engine/evidence/evaluate.ts). The index serves "the latest evaluation of a pipeline version".
 * - `evidence_tables`: one as-of evidence table per (pipeline version, as-of date) (engine/evidence/
 *   states.ts): what followed past snapshots in each state and the probability calibrators, measured on
 *   outcomes known by the as-of date. Written once and never changed; stored as `json` (not jsonb) so the
 *   text read back is the text written. The primary key serves "the greatest as-of <= a date".
 *
 * Snapshots are stored packed since 2026120411 (`doc_packed`: the jsonb text deflated against a preset
 * dictionary, snapshot-codec.ts), about a quarter of the jsonb's size; `doc` (jsonb) is kept for the
 * rows written before, which are read as they are. Exactly one of the two is set. toast_tuple_target
 * keeps a packed document in its row (no TOAST table lookups, no second compression attempt).
 */
import type { Migration } from '../platform/migrations.js';

export const analysisMigrations: Migration[] = [
  {
    version: 2026112101,
    name: 'securities and daily bars',
    sql: `
      CREATE TABLE securities (
        symbol       text PRIMARY KEY,
        name         text NOT NULL,
        sector       text,
        sub_industry text,
        asset_type   text NOT NULL DEFAULT 'EQUITY' CHECK (asset_type IN ('EQUITY', 'INDEX')),
        data_source  text NOT NULL CHECK (data_source IN ('synthetic', 'imported')),
        updated_at   timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX securities_sector_idx ON securities (sector);

      CREATE TABLE bars (
        symbol text NOT NULL REFERENCES securities (symbol) ON DELETE CASCADE,
        date   date NOT NULL,
        open   double precision NOT NULL CHECK (open > 0),
        high   double precision NOT NULL CHECK (high > 0),
        low    double precision NOT NULL CHECK (low > 0),
        close  double precision NOT NULL CHECK (close > 0),
        volume bigint NOT NULL CHECK (volume >= 0),
        PRIMARY KEY (symbol, date),
        CHECK (high >= low)
      );
    `,
  },
  {
    version: 2026112201,
    name: 'analysis snapshots and pipeline runs',
    sql: `
      CREATE TABLE analysis_snapshots (
        symbol           text NOT NULL REFERENCES securities (symbol) ON DELETE CASCADE,
        analysis_date    date NOT NULL,
        doc              jsonb NOT NULL,
        produced_at      timestamptz NOT NULL,
        pipeline_version text NOT NULL,
        PRIMARY KEY (symbol, analysis_date)
      );
      CREATE INDEX analysis_snapshots_date_idx ON analysis_snapshots (analysis_date, symbol);

      CREATE TABLE analysis_runs (
        id               bigserial PRIMARY KEY,
        started_at       timestamptz NOT NULL,
        finished_at      timestamptz NOT NULL,
        pipeline_version text NOT NULL,
        from_date        date NOT NULL,
        to_date          date NOT NULL,
        symbols          int NOT NULL,
        snapshots        int NOT NULL,
        model            jsonb,
        transitions      jsonb
      );
    `,
  },
  {
    version: 2026120101,
    name: 'evidence runs',
    sql: `
      CREATE TABLE evidence_runs (
        id               bigserial PRIMARY KEY,
        pipeline_version text NOT NULL,
        as_of_date       date NOT NULL,
        from_date        date NOT NULL,
        to_date          date NOT NULL,
        horizons         int[] NOT NULL,
        seed             bigint NOT NULL,
        snapshots        int NOT NULL,
        symbols          int NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        evaluation       jsonb NOT NULL,
        CHECK (from_date <= as_of_date AND as_of_date <= to_date)
      );
      CREATE INDEX evidence_runs_version_idx ON evidence_runs (pipeline_version, as_of_date DESC, id DESC);
    `,
  },
  {
    version: 2026120201,
    name: 'evidence tables',
    sql: `
      CREATE TABLE evidence_tables (
        pipeline_version text NOT NULL,
        as_of            date NOT NULL,
        evidence         json NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (pipeline_version, as_of)
      );
    `,
  },
  {
    version: 2026120411,
    name: 'packed analysis snapshots',
    sql: `
      ALTER TABLE analysis_snapshots ALTER COLUMN doc DROP NOT NULL;
      ALTER TABLE analysis_snapshots ADD COLUMN doc_packed bytea;
      ALTER TABLE analysis_snapshots ALTER COLUMN doc_packed SET STORAGE EXTERNAL;
      ALTER TABLE analysis_snapshots ADD CONSTRAINT analysis_snapshots_one_doc CHECK ((doc IS NULL) <> (doc_packed IS NULL));
      ALTER TABLE analysis_snapshots SET (toast_tuple_target = 8160);
    `,
  },
];
