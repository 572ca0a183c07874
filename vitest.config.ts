import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of sibling packages, not their build output.
    alias: { '@parley/protocol': src('protocol'), '@parley/sdk': src('sdk') },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep parallelism modest so PostgreSQL and child-process suites stay stable.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
