/**
 * The optimize input's unstorable-text walk (request/rules.ts unstorableText, run by the compiled
 * validator of request/validator.ts as the x-storable-text rule)
 * keeps its own stack: a free-form map nested far deeper than any request may be (the shell refuses
 * documents past MAX_JSON_DEPTH first) is still walked to the end, never a stack overflow, and every
 * NUL or unpaired surrogate is reported by path in document order.
 */
import { validateRequestBody } from '../../../subgraphs/allocation/request/validator.js';
import { AppError } from '../../../subgraphs/platform/errors.js';

/** `{"k": {"k": ... leaf ...}}`, built without recursion. */
function deepMap(levels: number, leaf: unknown, key = 'k'): Record<string, unknown> {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value as Record<string, unknown>;
}

async function violations(body: Record<string, unknown>): Promise<Array<{ field?: string; message: string }>> {
  try {
    validateRequestBody(body, 'rest');
  } catch (err) {
    if (err instanceof AppError) return err.details;
    throw err;
  }
  return [];
}

it('walks a map nested 100,000 deep without overflowing the stack', async () => {
  const details = await violations({ name: 'x', total_capital: 5000, risk_quiz_answers: deepMap(100_000, 'fine') });
  expect(details.map((d) => d.field)).toContain('risk_quiz_answers');
});

it('finds a NUL at the bottom of a 20,000-deep map, by its path', async () => {
  const details = await violations({ name: 'x', total_capital: 5000, risk_quiz_answers: deepMap(20_000, 'a\u0000b') });
  const nul = details.filter((d) => d.message.includes('NUL'));
  expect(nul).toHaveLength(1);
  expect(nul[0].field).toBe(`risk_quiz_answers${'.k'.repeat(20_000)}`);
});

it('reports keys and values in document order, a bad key before what it holds, 10,000 levels down', async () => {
  const down = `risk_quiz_answers${'.k'.repeat(10_000)}`;
  const details = await violations({
    name: 'bad\u0000name',
    total_capital: 5000,
    risk_quiz_answers: deepMap(10_000, { ok: 'a\uD800', ['b\u0000']: 'c\u0000', list: ['fine', '\uDC00'] }),
  });
  expect(details.filter((d) => d.message.includes('NUL')).map((d) => d.field)).toEqual([
    'name',
    `${down}.ok`,
    `${down}.b\u0000`,
    `${down}.b\u0000`,
    `${down}.list[1]`,
  ]);
});
