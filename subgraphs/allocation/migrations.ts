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
 *   Replaced by `portfolio_holdings` (2026120301), which copied its rows; the optimize response keeps
 *   what was advised.
 * - Books (2026120301): every portfolio is a book a partner can trade. `portfolios` gains `cash` (the
 *   book's cash now; existing rows: their remaining capital), `version` (1, +1 per changing request:
 *   the ETag), `source` ('optimize', 'holdings', 'import') and `updated_at`; its total/allocated/remaining
 *   figures stay the opening ones (a created book: the holdings' cost + cash), and its `response` the
 *   opening document (an optimize result, or a PortfolioResponse-shaped document without allocations).
 *   `portfolio_holdings`: the current shares per symbol with their total cost in cents (average cost),
 *   entry date, optional stop and target, sector and support at entry; a full sale deletes the row.
 *   `portfolio_trades`: the trade log, numbered per book (`seq`), each with the cash and version after
 *   it. `portfolio_requests`: the Idempotency-Key of each trade or applied rebalance with the answer
 *   as served, written in the same transaction as the change.
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
  {
    version: 2026120301,
    name: 'books: cash, version, holdings, trades and idempotent trade requests',
    sql: `
      ALTER TABLE portfolios ADD COLUMN cash numeric(16, 2);
      UPDATE portfolios SET cash = remaining_capital;
      ALTER TABLE portfolios ALTER COLUMN cash SET NOT NULL;
      ALTER TABLE portfolios ADD CONSTRAINT portfolios_cash_check CHECK (cash >= 0);
      ALTER TABLE portfolios ADD COLUMN version bigint NOT NULL DEFAULT 1 CHECK (version >= 1);
      ALTER TABLE portfolios ADD COLUMN source text NOT NULL DEFAULT 'optimize' CHECK (source IN ('optimize', 'holdings', 'import'));
      ALTER TABLE portfolios ADD COLUMN updated_at timestamptz;
      UPDATE portfolios SET updated_at = created_at;
      ALTER TABLE portfolios ALTER COLUMN updated_at SET NOT NULL;
      ALTER TABLE portfolios DROP CONSTRAINT portfolios_total_capital_check;
      ALTER TABLE portfolios ADD CONSTRAINT portfolios_total_capital_check CHECK (total_capital >= 0);

      CREATE TABLE portfolio_holdings (
        portfolio_id     uuid NOT NULL REFERENCES portfolios (id) ON DELETE CASCADE,
        symbol           text NOT NULL,
        position         int NOT NULL,
        shares           bigint NOT NULL CHECK (shares > 0),
        cost_total       numeric(16, 2) NOT NULL CHECK (cost_total >= 0),
        entry_date       date NOT NULL,
        stop_loss        numeric(16, 2) CHECK (stop_loss > 0),
        target_price     numeric(16, 2) CHECK (target_price > 0),
        sector           text,
        support_at_entry numeric(16, 2),
        PRIMARY KEY (portfolio_id, symbol)
      );
      CREATE INDEX portfolio_holdings_symbol_idx ON portfolio_holdings (symbol);
      INSERT INTO portfolio_holdings (portfolio_id, symbol, position, shares, cost_total, entry_date, stop_loss, target_price, sector, support_at_entry)
      SELECT x.portfolio_id, x.symbol, x.rank, x.shares, round(x.shares * x.entry_price, 2),
             COALESCE(p.analysis_date, (p.created_at AT TIME ZONE 'UTC')::date),
             NULLIF(x.stop_loss, 0), NULLIF(x.target_price, 0), x.sector, x.support_at_entry
        FROM portfolio_positions x JOIN portfolios p ON p.id = x.portfolio_id;
      DROP TABLE portfolio_positions;

      CREATE TABLE portfolio_trades (
        id           uuid PRIMARY KEY,
        portfolio_id uuid NOT NULL REFERENCES portfolios (id) ON DELETE CASCADE,
        seq          int NOT NULL CHECK (seq >= 1),
        symbol       text NOT NULL,
        side         text NOT NULL CHECK (side IN ('BUY', 'SELL')),
        shares       bigint NOT NULL CHECK (shares > 0),
        price        numeric(16, 2) NOT NULL CHECK (price > 0),
        price_source text NOT NULL CHECK (price_source IN ('given', 'close', 'cost')),
        trade_date   date NOT NULL,
        realised_pnl numeric(16, 2),
        cash_after   numeric(16, 2) NOT NULL CHECK (cash_after >= 0),
        version      bigint NOT NULL,
        origin       text NOT NULL CHECK (origin IN ('trade', 'rebalance')),
        recorded_at  timestamptz NOT NULL,
        trace_id     text NOT NULL,
        UNIQUE (portfolio_id, seq)
      );

      CREATE TABLE portfolio_requests (
        portfolio_id    uuid NOT NULL REFERENCES portfolios (id) ON DELETE CASCADE,
        idempotency_key text NOT NULL,
        request_hash    text NOT NULL,
        response        json NOT NULL,
        created_at      timestamptz NOT NULL,
        PRIMARY KEY (portfolio_id, idempotency_key)
      );
    `,
  },
];
