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
];
