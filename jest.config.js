/** Jest runs the TypeScript sources directly as ESM (ts-jest, transpile only: `npm run build`, i.e. tsc, owns types). */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/reporters/summary.cjs'],
};
