/**
 * Jest runs the TypeScript sources directly as ESM (ts-jest, transpile only: `npm run build`, i.e. tsc, owns types).
 *
 * Timeouts scale with the machine: TEST_TIME_SCALE (default from the load average, see
 * test/helpers/time-scale.mjs) multiplies the 60 s test and hook timeout here, and every deadline the
 * tests wait on (test/helpers/time.ts); it is exported so that the workers use the same factor.
 * Child processes are recorded per run and must all be gone at the end (test/setup/children-*.mjs).
 */
import { timeScale } from './test/helpers/time-scale.mjs';

const scale = timeScale();
process.env.TEST_TIME_SCALE = String(scale);

export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: Math.round(60000 * scale),
  globalSetup: '<rootDir>/test/setup/children-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/children-teardown.mjs',
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/reporters/summary.cjs'],
};
