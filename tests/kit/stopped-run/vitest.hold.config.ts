/** The one step tests/kit/stopped-run.test.ts stops: vitest with the server tests' own setup (their PostgreSQL) on holds-resources.hold.ts. */
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '../../..'),
  test: {
    include: ['tests/kit/stopped-run/*.hold.ts'],
    globalSetup: ['tests/server/globalSetup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
