/**
 * The market-data and token CLI against a real on-disk PGlite store: imports validate every row,
 * report bad rows with file and line, keep the good rows, and read .gz files and directories.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { run } from '../../cli/tradegraph.js';
import * as store from '../../subgraphs/analysis/store.js';
import { createOidcTokenVerifier, createPartnerTokenVerifier } from '../../subgraphs/platform/auth.js';
import { DEMO_PARTNER, DEV_IDENTITY_KEY_FILE, DEV_SEARCH_AUDIENCE, resolveOidc, resolvePartnerAuth } from '../../subgraphs/platform/dev-secret.js';
import { captureCliOutput, scratchStore } from '../helpers/cli.js';
import { testConfig } from '../helpers/config.js';

const { config, inStore } = scratchStore('tg-cli-store-');
const cli = captureCliOutput();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-cli-'));
const write = (name: string, text: string | Buffer) => {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
};

it('imports securities, keeping quoted commas in sub-industries', async () => {
  const file = write('securities.csv', 'symbol,name,sector,sub_industry\nAAPL,Apple Inc.,Information Technology,"Technology Hardware, Storage & Peripherals"\nXOM,Exxon Mobil,Energy,Integrated Oil & Gas\nBAD,Bad Sector Inc,Space Mining,\n');
  expect(await run(['import', 'securities', file], config)).toBe(1);
  expect(cli.err.filter((e) => e.startsWith(`  ${file}:`))).toEqual([expect.stringMatching(new RegExp(`^  ${file}:4: .*sector`, 'i'))]);
  expect(cli.out.at(-1)).toBe('Imported 2 securities for 2 symbols; 1 rows rejected.');
  const aapl = await inStore((db) => store.findSecurity(db, 'AAPL'));
  expect(aapl).toEqual(expect.objectContaining({ subIndustry: 'Technology Hardware, Storage & Peripherals', dataSource: 'imported' }));
});

it('imports long-format bars from a .gz file, reporting each bad row with file and line', async () => {
  const csv = [
    'symbol,date,open,high,low,close,volume',
    'AAPL,2021-04-19,133.51,135.47,133.34,134.84,94264200',
    'AAPL,2021-04-20,135.02,135.53,131.81,133.11,94812300',
    'AAPL,2021-02-30,1,1,1,1,1',
    'AAPL,2021-04-21,132.36,133.75,131.30,133.50,-5',
    'XOM,2021-04-21,55.1,56.0,54.9,55.8,20000000',
  ].join('\n');
  const file = write('bars.csv.gz', gzipSync(csv));
  expect(await run(['import', 'bars', file], config)).toBe(1);
  expect(cli.err.some((e) => e.startsWith(`  ${file}:4: `))).toBe(true);
  expect(cli.err.some((e) => e.startsWith(`  ${file}:5: `))).toBe(true);
  expect(cli.out.at(-1)).toBe('Imported 3 bars for 2 symbols; 2 rows rejected.');
  const bars = await inStore((db) => store.listBars(db, 'AAPL', { limit: 10 }));
  expect(bars.items.map((b) => [b.date, b.close, b.volume])).toEqual([
    ['2021-04-19', 134.84, 94264200],
    ['2021-04-20', 133.11, 94812300],
  ]);
});

it('imports a directory of Yahoo per-symbol files, adjusting by Adj Close, and creates unknown symbols', async () => {
  write('yahoo/MSFT.csv', 'Date,Open,High,Low,Close,Adj Close,Volume\n2021-04-20,260,261,257,258,250,30000000\n2021-04-21,258,260.5,256,260,255,25000000\n');
  expect(await run(['import', 'bars', path.join(dir, 'yahoo')], config)).toBe(0);
  const { msft, bars } = await inStore(async (db) => ({ msft: await store.findSecurity(db, 'MSFT'), bars: await store.listBars(db, 'MSFT', { limit: 5 }) }));
  expect(msft).toEqual(expect.objectContaining({ symbol: 'MSFT', name: 'MSFT', dataSource: 'imported' }));
  expect(bars.items[0].close).toBeCloseTo(250, 10);
  expect(bars.items[0].open).toBeCloseTo(260 * (250 / 258), 10);
});

it('generates the synthetic market into the store', async () => {
  expect(await run(['generate', '--symbols', '11', '--years', '1', '--seed', '7'], config)).toBe(0);
  expect(cli.out.at(-1)).toMatch(/^Stored the synthetic market: 12 securities, 3024 bars, \d{4}-\d\d-\d\d\.\.2026-10-30\.$/);
});

it('mints a partner token the analysis origin accepts', async () => {
  expect(await run(['token', '--sub', 'partner-42', '--audience', 'analysis', '--ttl', '10m'], config)).toBe(0);
  const principal = await createPartnerTokenVerifier(config.auth, config.auth.audiences.analysis).verify(cli.out[0]);
  expect(principal.partnerId).toBe('partner-42');
  expect((principal.claims.exp as number) - (principal.claims.iat as number)).toBe(600);
});

it('mints one token for several origins when given several audiences', async () => {
  expect(await run(['token', '--sub', 'partner-7', '--audience', 'analysis,allocation'], config)).toBe(0);
  for (const audience of [config.auth.audiences.analysis, config.auth.audiences.allocation]) {
    expect((await createPartnerTokenVerifier(config.auth, audience).verify(cli.out.at(-1) as string)).partnerId).toBe('partner-7');
  }
  expect(await run(['token', '--audience', 'allocation'], config)).toBe(0);
  await expect(createPartnerTokenVerifier(config.auth, config.auth.audiences.analysis).verify(cli.out.at(-1) as string)).rejects.toThrow();
});

it('mints for the demo partner (the demo book\'s owner, as the console\'s sign-in does) without --sub, and says so in its usage', async () => {
  expect(await run(['token', '--audience', 'allocation'], config)).toBe(0);
  const principal = await createPartnerTokenVerifier(config.auth, config.auth.audiences.allocation).verify(cli.out.at(-1) as string);
  expect(principal.partnerId).toBe(DEMO_PARTNER);
  expect(await run(['help'], config)).toBe(0);
  expect(cli.out.at(-1)).toContain(`mint a development token for ID (default ${DEMO_PARTNER}, the`);
});

describe('development identity key (README "Tokens")', () => {
  const dev = testConfig({ APP_ENV: 'development', AUTH_HS256_SECRET: '' });

  it('signs one ES256 token that the search origin and both partner origins accept', async () => {
    expect(await run(['token', '--sub', 'partner-9', '--audience', 'analysis,allocation,search'], dev)).toBe(0);
    const token = cli.out.at(-1) as string;
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: 'dev-identity-1' });
    const oidc = resolveOidc(dev);
    expect(oidc).toMatchObject({ issuer: dev.auth.issuer, audiences: [DEV_SEARCH_AUDIENCE] });
    await expect(createOidcTokenVerifier(oidc, dev.env).verify(token)).resolves.toMatchObject({ kind: 'oidc', subject: 'partner-9' });
    const partnerAuth = resolvePartnerAuth(dev);
    for (const audience of [dev.auth.audiences.analysis, dev.auth.audiences.allocation]) {
      expect((await createPartnerTokenVerifier(partnerAuth, audience).verify(token)).partnerId).toBe('partner-9');
    }
    // The private key stays in DATA_DIR, readable by its owner only.
    expect(fs.statSync(path.join(dev.dataDir, DEV_IDENTITY_KEY_FILE)).mode & 0o077).toBe(0);
  });

  it('is not trusted outside development, nor once an identity provider is configured', async () => {
    expect(await run(['token', '--sub', 'partner-9', '--audience', 'search'], dev)).toBe(0);
    const token = cli.out.at(-1) as string;
    // APP_ENV=test: no development identity, so search has no issuer and partner origins no key for ES256.
    expect(resolveOidc(config)).toBe(config.oidc);
    await expect(createOidcTokenVerifier(resolveOidc(config), config.env).verify(token)).rejects.toMatchObject({ code: 'AUTH_NOT_CONFIGURED' });
    const withIdp = testConfig({ APP_ENV: 'development', DATA_DIR: dev.dataDir, OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCES: 'web' });
    expect(resolveOidc(withIdp).localKeys).toBeUndefined();
    await expect(run(['token', '--audience', 'search'], withIdp)).rejects.toThrow(/identity provider/);
    const withJwks = testConfig({ APP_ENV: 'development', DATA_DIR: dev.dataDir, AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json' });
    expect(resolvePartnerAuth(withJwks).localKeys).toBeUndefined();
  });
});

it('usage errors are reported, not thrown as crashes', async () => {
  await expect(run(['import', 'bars'], config)).rejects.toThrow(/at least one file/);
  await expect(run(['import', 'bars', path.join(dir, 'missing.csv')], config)).rejects.toThrow(/No such file/);
  await expect(run(['frobnicate'], config)).rejects.toThrow(/Unknown command/);
});

it('overlapping files keep the first row of each day and report the later ones by file and line', async () => {
  const a = write('overlap/a.csv', 'symbol,date,open,high,low,close,volume\nOVLP,2021-04-19,10,11,9,10.5,100\nOVLP,2021-04-20,10,11,9,10.6,100\n');
  const b = write('overlap/b.csv', 'symbol,date,open,high,low,close,volume\nOVLP,2021-04-20,20,21,19,20.5,200\nOVLP,2021-04-21,10,11,9,10.7,100\n');
  expect(await run(['import', 'bars', a, b, a], config)).toBe(1);
  expect(cli.err).toEqual([
    `  ${b}:2: duplicate row for OVLP on 2021-04-20 (first at ${a}:3)`,
    `  ${a}:2: duplicate row for OVLP on 2021-04-19 (first at ${a}:2)`,
    `  ${a}:3: duplicate row for OVLP on 2021-04-20 (first at ${a}:3)`,
  ]);
  expect(cli.out.at(-1)).toBe('Imported 3 bars for 1 symbols; 3 rows rejected.');
  const bars = await inStore((db) => store.listBars(db, 'OVLP', { limit: 10 }));
  expect(bars.items.map((x) => [x.date, x.close])).toEqual([
    ['2021-04-19', 10.5],
    ['2021-04-20', 10.6],
    ['2021-04-21', 10.7],
  ]);
});

it('a securities file given twice is imported once, the repeats reported', async () => {
  const file = write('sec-twice.csv', 'symbol,name,sector,sub_industry\nTWCE,Twice Inc,Energy,Oil & Gas Drilling\n');
  expect(await run(['import', 'securities', file, file], config)).toBe(1);
  expect(cli.err).toEqual([`  ${file}:2: duplicate row for TWCE (first at ${file}:2)`]);
});
