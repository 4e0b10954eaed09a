/** Tables owned by the analysis domain: securities and their daily bars. */
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
];
