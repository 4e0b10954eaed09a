/**
 * A bare origin of the HTTP shell (platform/http.ts createOrigin) for the tests of the shell itself: no
 * store, no GraphQL, a /health that is always up, 1 MB bodies, silent logs. The test adds its own routes
 * and then listens; `overrides` changes any option (e.g. shortened `timeouts`).
 */
import type { BaseContext } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { createOrigin, type OriginOptions } from '../../subgraphs/platform/http.js';

export function bareOrigin(name: string, overrides: Partial<OriginOptions<BaseContext>> = {}): Promise<FastifyInstance> {
  return createOrigin<BaseContext>({
    name,
    version: '0',
    env: 'test',
    logLevel: 'silent',
    bodyLimitBytes: 1_048_576,
    dbHealthTimeoutMs: 1000,
    health: { failWhenDbDown: false, body: () => ({}) },
    ...overrides,
  });
}
