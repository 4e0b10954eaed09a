/** BoundedCache: least recently used entries leave first; failed promises are not kept. */
import { BoundedCache } from '../../../subgraphs/platform/bounded-cache.js';

it('keeps at most maxEntries, dropping the least recently used', () => {
  const cache = new BoundedCache<string, number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  expect(cache.get('a')).toBe(1); // a is now the most recently used
  cache.set('c', 3);
  expect(cache.get('b')).toBeUndefined();
  expect(cache.get('a')).toBe(1);
  expect(cache.get('c')).toBe(3);
  expect(cache.size).toBe(2);
  expect(() => new BoundedCache(0)).toThrow(RangeError);
});

it('memo computes once per key, and forgets a promise that fails', async () => {
  const cache = new BoundedCache<string, Promise<number>>(10);
  let calls = 0;
  const ok = () => cache.memo('k', async () => ++calls);
  expect(await ok()).toBe(1);
  expect(await ok()).toBe(1);
  expect(calls).toBe(1);

  let attempts = 0;
  const flaky = () => cache.memo('f', async () => {
    attempts++;
    if (attempts === 1) throw new Error('store down');
    return 42;
  });
  await expect(flaky()).rejects.toThrow('store down');
  expect(await flaky()).toBe(42);
  expect(attempts).toBe(2);
});
