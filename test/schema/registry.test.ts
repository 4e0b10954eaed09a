/**
 * Schema-registry checks (issue: schema checks; DESIGN section 6): the committed SDL matches the code,
 * the subgraphs compose, and breaking changes fail unless recorded in the reviewed allowlist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { SUBGRAPHS } from '../../subgraphs/platform/config.js';
import { checkSchemas, compose, type AllowedChange, type CheckInput, type SchemaFiles, type SubgraphSdls } from '../../schema/registry.js';
import { codeSdls } from '../../schema/sdl.js';

const read = (name: string) => fs.readFileSync(path.join(PROJECT_ROOT, 'schema', `${name}.graphql`), 'utf8');
const readPublished = (name: string) => fs.readFileSync(path.join(PROJECT_ROOT, 'schema', 'published', `${name}.graphql`), 'utf8');

let code: SubgraphSdls;
let committed: CheckInput['committed'];
let published: SchemaFiles;
beforeAll(async () => {
  code = await codeSdls();
  committed = { supergraph: read('supergraph') };
  published = { supergraph: readPublished('supergraph') };
  for (const name of SUBGRAPHS) {
    committed[name] = read(name);
    published[name] = readPublished(name);
  }
});

const allow = (change: Omit<AllowedChange, 'reason' | 'approved_by'>, reason = 'clients migrated', approved_by = 'api-review'): AllowedChange => ({
  ...change,
  reason,
  approved_by,
});

/** The reviewed breaking changes of schema/breaking-changes.json. */
const recordedBreaks = (): AllowedChange[] => (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schema', 'breaking-changes.json'), 'utf8')) as { allowed: AllowedChange[] }).allowed;

it('the committed schema files match the code, compose and break nothing that was published', () => {
  const allowlist = recordedBreaks();
  const result = checkSchemas({ code, committed, published, allowlist });
  expect(result.problems).toEqual([]);
  expect(result.ok).toBe(true);
  expect(result.supergraphSdl?.trim()).toBe(committed.supergraph?.trim());
});

it('the supergraph joins all three subgraphs and Security is keyed by symbol', () => {
  expect(committed.supergraph).toMatch(/join__graph\(name: "analysis"/);
  expect(committed.supergraph).toMatch(/join__graph\(name: "allocation"/);
  expect(committed.supergraph).toMatch(/join__graph\(name: "search"/);
  expect(committed.analysis).toMatch(/type Security\s+@key\(fields: "symbol"\)/);
});

it('fails when the code SDL drifts from the committed file', () => {
  const drifted = { ...code, allocation: code.allocation.replace('type Query {', 'type Query {\n  portfolioCount: Int') };
  const result = checkSchemas({ code: drifted, committed, allowlist: [] });
  expect(result.ok).toBe(false);
  expect(result.problems).toContain(
    'schema/allocation.graphql differs from the allocation subgraph\'s SDL in code: run npm run schema:update and commit the result',
  );
});

it('fails when a committed file is missing', () => {
  const result = checkSchemas({ code, committed: { ...committed, search: undefined }, allowlist: [] });
  expect(result.problems).toContain('schema/search.graphql is missing: run npm run schema:update');
});

it('fails when the subgraphs do not compose', () => {
  // Two subgraphs defining the same non-shareable field is a composition error.
  const clash = { ...code, search: code.search.replace('type Query {', 'type Query {\n  allocationStrategies: [String!]!') };
  const result = checkSchemas({ code: clash, committed, allowlist: [] });
  expect(result.ok).toBe(false);
  expect(result.supergraphSdl).toBeUndefined();
  expect(result.problems.some((p) => p.startsWith('composition:') && p.includes('allocationStrategies'))).toBe(true);
});

describe('breaking changes against the committed supergraph', () => {
  // Removing a field clients may use: Security.subIndustry.
  const removeField = (sdls: SubgraphSdls): SubgraphSdls => ({
    ...sdls,
    analysis: sdls.analysis.replace(/\n\s*"""GICS sub-industry"""\n\s*subIndustry: String\n/, '\n'),
  });

  it('fails on a removed field, naming it', () => {
    const changed = removeField(code);
    expect(changed.analysis).not.toContain('subIndustry');
    const result = checkSchemas({ code: changed, committed, allowlist: [] });
    expect(result.ok).toBe(false);
    expect(result.unallowed).toEqual(
      expect.arrayContaining([
        { schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' },
        { schema: 'analysis', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' },
      ]),
    );
  });

  it('passes the compatibility gate once every breaking change is recorded with a reason and approver', () => {
    const changed = removeField(code);
    // The breaks recorded in schema/breaking-changes.json, plus the one this test makes.
    const allowlist = [
      ...recordedBreaks(),
      allow({ schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' }),
      allow({ schema: 'analysis', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' }),
    ];
    const result = checkSchemas({ code: changed, committed, allowlist });
    expect(result.unallowed).toEqual([]);
    expect(result.breaking).toHaveLength(2);
    // The drift itself is still reported until schema:update rewrites the files.
    expect(result.problems.every((p) => p.includes('differs from'))).toBe(true);
  });

  it('an allowlist entry without an approver does not count', () => {
    const changed = removeField(code);
    const allowlist = [allow({ schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' }, 'reason', '')];
    const result = checkSchemas({ code: changed, committed, allowlist });
    expect(result.unallowed).toContainEqual({ schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' });
    expect(result.problems).toContain('breaking-changes.json: "Security.subIndustry was removed." needs a reason and approved_by');
  });

  it('an added optional field is not breaking', () => {
    const added = { ...code, search: code.search.replace('type Query {', 'type Query {\n  searchVersion: String') };
    const result = checkSchemas({ code: added, committed, allowlist: [] });
    expect(result.breaking).toEqual([]);
  });
});

describe('the published baseline', () => {
  // The working files were updated with the break (schema:update ran), so there is no drift left.
  const afterUpdate = () => {
    const changed = { ...code, analysis: code.analysis.replace(/\n\s*"""GICS sub-industry"""\n\s*subIndustry: String\n/, '\n') };
    const working: SchemaFiles = { ...changed, supergraph: compose(changed).supergraphSdl };
    return { changed, working };
  };

  it('keeps a break visible after schema:update: deleting its allowlist entry fails the check', () => {
    const { changed, working } = afterUpdate();
    const result = checkSchemas({ code: changed, committed: working, published, allowlist: [] });
    expect(result.problems.filter((p) => p.includes('differs from'))).toEqual([]);
    expect(result.ok).toBe(false);
    expect(result.unallowed).toContainEqual({ schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' });
  });

  it('passes once the break is recorded, until the next publish makes it the baseline', () => {
    const { changed, working } = afterUpdate();
    // The breaks recorded in schema/breaking-changes.json, plus the one this test makes.
    const allowlist = [
      ...recordedBreaks(),
      allow({ schema: 'supergraph', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' }),
      allow({ schema: 'analysis', type: 'FIELD_REMOVED', description: 'Security.subIndustry was removed.' }),
    ];
    expect(checkSchemas({ code: changed, committed: working, published, allowlist }).ok).toBe(true);
    // After schema:publish the working files are the baseline and need no allowlist.
    expect(checkSchemas({ code: changed, committed: working, published: working, allowlist: [] }).ok).toBe(true);
  });
});
