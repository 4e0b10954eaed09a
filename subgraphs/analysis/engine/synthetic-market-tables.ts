/**
 * The data of the synthetic market (synthetic-market.ts): the published constants (ACME, the index, the
 * history length), the GICS sub-industries and per-sector betas, volatilities and company-name words, and
 * every parameter of the simulation model (GARCH coefficients, regime-chain phases, gaps, price guards,
 * bar and volume noise, ACME's schedule). Changing a value here changes every generated market.
 */
import type { GicsSector } from './market-types.js';

/** Trading days per year used to size the history. */
export const TRADING_DAYS_PER_YEAR = 252;
/** Symbol and name of the first equity, which always ends in a stage-2 advance. */
export const ACME_SYMBOL = 'ACME';
export const ACME_NAME = 'Acme Synthetic Corp';
/** Display name of the synthetic index. */
export const SYNTHETIC_INDEX_NAME = 'TradeGraph Synthetic Market Index';
/** The index's first close. */
export const INDEX_START_LEVEL = 1000;
/** Upper bound on symbolCount (tickers are drawn from the 3-4 letter space). */
export const MAX_SYMBOL_COUNT = 100_000;

/** Realistic GICS sub-industries each synthetic equity draws from, by sector. */
export const SYNTHETIC_SUB_INDUSTRIES: Readonly<Record<GicsSector, readonly string[]>> = {
  'Communication Services': [
    'Interactive Media & Services',
    'Movies & Entertainment',
    'Integrated Telecommunication Services',
    'Wireless Telecommunication Services',
    'Advertising',
    'Interactive Home Entertainment',
    'Cable & Satellite',
    'Publishing',
  ],
  'Consumer Discretionary': [
    'Automobile Manufacturers',
    'Broadline Retail',
    'Restaurants',
    'Hotels, Resorts & Cruise Lines',
    'Apparel, Accessories & Luxury Goods',
    'Home Improvement Retail',
    'Homebuilding',
    'Footwear',
  ],
  'Consumer Staples': [
    'Packaged Foods & Meats',
    'Soft Drinks & Non-alcoholic Beverages',
    'Household Products',
    'Consumer Staples Merchandise Retail',
    'Personal Care Products',
    'Tobacco',
    'Food Retail',
    'Distillers & Vintners',
  ],
  Energy: [
    'Integrated Oil & Gas',
    'Oil & Gas Exploration & Production',
    'Oil & Gas Refining & Marketing',
    'Oil & Gas Storage & Transportation',
    'Oil & Gas Equipment & Services',
    'Coal & Consumable Fuels',
  ],
  Financials: [
    'Diversified Banks',
    'Regional Banks',
    'Investment Banking & Brokerage',
    'Asset Management & Custody Banks',
    'Property & Casualty Insurance',
    'Life & Health Insurance',
    'Transaction & Payment Processing Services',
    'Consumer Finance',
    'Financial Exchanges & Data',
  ],
  'Health Care': [
    'Pharmaceuticals',
    'Biotechnology',
    'Health Care Equipment',
    'Managed Health Care',
    'Life Sciences Tools & Services',
    'Health Care Services',
    'Health Care Facilities',
    'Health Care Supplies',
  ],
  Industrials: [
    'Aerospace & Defense',
    'Industrial Machinery & Supplies & Components',
    'Construction & Engineering',
    'Rail Transportation',
    'Air Freight & Logistics',
    'Electrical Components & Equipment',
    'Building Products',
    'Passenger Airlines',
    'Environmental & Facilities Services',
  ],
  'Information Technology': [
    'Application Software',
    'Systems Software',
    'Semiconductors',
    'Semiconductor Materials & Equipment',
    'Technology Hardware, Storage & Peripherals',
    'Communications Equipment',
    'IT Consulting & Other Services',
    'Electronic Components',
  ],
  Materials: [
    'Specialty Chemicals',
    'Commodity Chemicals',
    'Gold',
    'Steel',
    'Copper',
    'Construction Materials',
    'Paper & Plastic Packaging Products & Materials',
    'Fertilizers & Agricultural Chemicals',
  ],
  'Real Estate': [
    'Data Center REITs',
    'Industrial REITs',
    'Retail REITs',
    'Multi-Family Residential REITs',
    'Office REITs',
    'Health Care REITs',
    'Self-Storage REITs',
    'Telecom Tower REITs',
    'Real Estate Services',
  ],
  Utilities: [
    'Electric Utilities',
    'Multi-Utilities',
    'Gas Utilities',
    'Water Utilities',
    'Independent Power Producers & Energy Traders',
    'Renewable Electricity',
  ],
};

/** Market factor GARCH(1,1). */
export const MARKET_LONG_RUN_VOL = 0.01;
export const MARKET_ALPHA = 0.09;
export const MARKET_BETA = 0.89;
export const MARKET_OMEGA = MARKET_LONG_RUN_VOL ** 2 * (1 - MARKET_ALPHA - MARKET_BETA);
export const BULL_DRIFT = 0.0005;
export const BEAR_DRIFT = -0.0009;

/** Idiosyncratic GARCH(1,1). */
export const IDIO_ALPHA = 0.06;
export const IDIO_BETA = 0.9;
/** Median idiosyncratic daily volatility across stocks (log-normal). */
export const IDIO_VOL_MEDIAN = 0.015;
/** Per-stock constant daily drift ~ N(ALPHA_MEAN, ALPHA_SD). */
export const ALPHA_MEAN = -0.0002;
export const ALPHA_SD = 0.0001;

/** Typical beta, sector-factor volatility (daily) and company-name nouns per sector (GICS order). */
export const SECTOR_SPECS: readonly { beta: number; vol: number; nouns: readonly string[] }[] = [
  { beta: 1.0, vol: 0.007, nouns: ['Media', 'Communications', 'Networks', 'Interactive', 'Broadcasting'] },
  { beta: 1.15, vol: 0.007, nouns: ['Brands', 'Retail', 'Motors', 'Leisure', 'Apparel', 'Homes'] },
  { beta: 0.65, vol: 0.005, nouns: ['Foods', 'Beverages', 'Household', 'Farms', 'Consumer Products'] },
  { beta: 1.0, vol: 0.011, nouns: ['Energy', 'Petroleum', 'Resources', 'Midstream', 'Drilling'] },
  { beta: 1.1, vol: 0.007, nouns: ['Financial', 'Bancorp', 'Capital', 'Insurance', 'Payments'] },
  { beta: 0.8, vol: 0.006, nouns: ['Therapeutics', 'Pharma', 'Biosciences', 'Medical', 'Health'] },
  { beta: 1.05, vol: 0.005, nouns: ['Industries', 'Aerospace', 'Logistics', 'Machinery', 'Engineering'] },
  { beta: 1.25, vol: 0.008, nouns: ['Systems', 'Software', 'Semiconductor', 'Digital', 'Micro', 'Technologies'] },
  { beta: 1.0, vol: 0.007, nouns: ['Materials', 'Chemicals', 'Mining', 'Metals', 'Packaging'] },
  { beta: 0.85, vol: 0.007, nouns: ['Realty', 'Properties', 'Land Trust', 'Estates', 'Residential'] },
  { beta: 0.55, vol: 0.006, nouns: ['Power', 'Utilities', 'Electric', 'Water', 'Gas & Electric'] },
];

export const NAME_HEADS = ['Al', 'Bel', 'Cor', 'Dra', 'El', 'Fen', 'Gar', 'Hal', 'Ion', 'Jun', 'Kel', 'Lum', 'Mar', 'Nor',
  'Ost', 'Pra', 'Quin', 'Ros', 'Sol', 'Tor', 'Ul', 'Ver', 'Wes', 'Xan', 'Yor', 'Zen'];
export const NAME_MIDDLES = ['a', 'e', 'i', 'o', '', 'ar', 'en', 'is'];
export const NAME_TAILS = ['tex', 'vion', 'dyne', 'ra', 'nex', 'lis', 'tron', 'via', 'mont', 'gen', 'ford', 'wick', 'ton'];
export const NAME_SUFFIXES = ['Inc.', 'Corp.', 'Holdings', 'Group', 'Co.', 'Ltd.'];

/** Weinstein phases of the regime chain. */
export const BASING = 0;
export const ADVANCING = 1;
export const TOPPING = 2;
export const DECLINING = 3;
/** Phase durations in trading days [min, max]. */
export const PHASE_DAYS: readonly (readonly [number, number])[] = [[40, 160], [50, 220], [25, 90], [40, 170]];
/** Idiosyncratic volatility and volume multipliers by phase. */
export const PHASE_VOL_MULT = [0.8, 1.0, 1.3, 1.2];
export const PHASE_VOLUME_MULT = [0.8, 1.15, 1.25, 1.05];
/** Initial phase distribution (roughly the chain's long-run shares). */
export const PHASE_START_SHARE = [0.3, 0.3, 0.15, 0.25];
/** Daily mean reversion towards the phase's anchor price while basing / topping. */
export const BASE_REVERSION = 0.025;
export const TOP_REVERSION = 0.015;
export const TOP_DRIFT = -0.0002;
/** Daily trend of an advancing (declining: negated) phase is drawn uniformly from [TREND_MIN, TREND_MAX). */
export const TREND_MIN = 0.001;
export const TREND_MAX = 0.0028;

export const EARNINGS_CYCLE = 63;
export const NEWS_GAP_PROBABILITY = 0.0015;
export const NEWS_GAP_VOL = 0.04;
export const BREAKOUT_GAP_PROBABILITY = 0.35;

/** Prices never fall below max(PRICE_FLOOR, start x FLOOR_FRACTION); advances end above start x CEILING. */
export const PRICE_FLOOR = 1;
export const FLOOR_FRACTION = 0.03;
export const CEILING_MULTIPLE = 60;

/** Share of the day's non-gap move that happens overnight, and open / range / volume noise scales. */
export const OPEN_SHARE = 0.3;
export const OPEN_NOISE = 0.25;
export const RANGE_SCALE = 0.55;
export const VOLUME_NOISE = 0.3;

/** ACME's forced base-then-advance schedule and its stage-2 support rule. */
export const ACME_BASE_DAYS = 90;
export const ACME_ADVANCE_DAYS = 200;
export const ACME_ADVANCE_DRIFT = 0.0033;
export const ACME_SUPPORT_DAYS = 100;
export const ACME_SUPPORT_OVER_MA = 1.04;
export const MA_DAYS = 150;
