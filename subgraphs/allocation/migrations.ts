/**
 * Tables owned by the allocation domain.
 *
 * - `portfolios`: one row per persisted optimize result, written in one transaction with its positions:
 *   the caller (partner id from the token's `sub`), the request as sent, the effective settings
 *   (risk settings, constraint pack, preset and where they came from), the full response as served (`json`, so a replay is byte-for-byte the first answer), and
 *   the request's trace id. `(partner_id, idempotency_key)` is unique: a retried optimize with the same
 *   `Idempotency-Key` finds the first result instead of writing a second portfolio; `request_hash`
 *   tells a true retry from a different request that reuses the key.
 * - `portfolio_positions`: the book's rows (symbol, shares, prices, weight, sector, rank), so other
 *   domains (opportunity search) read holdings with SQL instead of digging through the response.
 *   No foreign key to securities: a portfolio is a record of what was advised and outlives a security.
 *   `support_at_entry` (2026112401): the highest support level below the entry when the book was built,
 *   so search can tell a broken support (null for books stored before it, and for names without one).
 * - `candidate_odds` (2026120202): Kelly's measured odds (engine/kelly-odds.ts), one table per pipeline
 *   version and as-of date; a table never changes once computed (it depends only on outcomes known by
 *   its as-of date), so rows are only ever added.
 */
import type { Migration } from '../platform/migrations.js';

export const allocationMigrations: Migration[] = [
  {
    version: 2026112301,
    name: 'portfolios and their positions',
    sql: `
      CREATE TABLE portfolios (
        id                 uuid PRIMARY KEY,
        partner_id         text NOT NULL,
        name               text NOT NULL,
        currency           text NOT NULL,
        total_capital      numeric(16, 2) NOT NULL CHECK (total_capital >= 1000),
        allocated_capital  numeric(16, 2) NOT NULL CHECK (allocated_capital >= 0),
        remaining_capital  numeric(16, 2) NOT NULL CHECK (remaining_capital >= 0),
        position_count     int NOT NULL CHECK (position_count >= 0),
        analysis_date      date,
        created_at         timestamptz NOT NULL,
        trace_id           text NOT NULL,
        idempotency_key    text,
        request_hash       text NOT NULL,
        request            jsonb NOT NULL,
        effective_settings jsonb NOT NULL,
        response           json NOT NULL,
        CHECK (allocated_capital + remaining_capital = total_capital),
        UNIQUE (partner_id, idempotency_key)
      );
      CREATE INDEX portfolios_partner_created_idx ON portfolios (partner_id, created_at DESC, id DESC);

      CREATE TABLE portfolio_positions (
        portfolio_id   uuid NOT NULL REFERENCES portfolios (id) ON DELETE CASCADE,
        rank           int NOT NULL,
        symbol         text NOT NULL,
        sector         text,
        shares         bigint NOT NULL CHECK (shares > 0),
        entry_price    numeric(16, 2) NOT NULL,
        stop_loss      numeric(16, 2) NOT NULL,
        target_price   numeric(16, 2),
        position_value numeric(16, 2) NOT NULL,
        risk_amount    numeric(16, 2) NOT NULL,
        weight         double precision NOT NULL,
        PRIMARY KEY (portfolio_id, symbol),
        UNIQUE (portfolio_id, rank)
      );
      CREATE INDEX portfolio_positions_symbol_idx ON portfolio_positions (symbol);
    `,
  },
  {
    version: 2026112401,
    name: 'portfolio positions: the support under the entry',
    sql: `ALTER TABLE portfolio_positions ADD COLUMN support_at_entry numeric(16, 2);`,
  },
  {
    version: 2026120202,
    name: 'candidate odds: measured chance of target before stop, per as-of date',
    sql: `
      CREATE TABLE candidate_odds (
        pipeline_version text NOT NULL,
        as_of            date NOT NULL,
        trades           int NOT NULL CHECK (trades >= 0),
        odds             jsonb NOT NULL,
        computed_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (pipeline_version, as_of)
      );
    `,
  },
];
