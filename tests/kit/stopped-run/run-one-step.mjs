// npm test's way of running a step (scripts/test-run.mjs), with one step: vitest on holds-resources.hold.ts.
import path from 'node:path';
import { startRun } from '../../../scripts/test-run.mjs';

const root = path.resolve(import.meta.dirname, '../../..');
const run = startRun();
const code = await run.step(
  process.execPath,
  [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'tests/kit/stopped-run/vitest.hold.config.ts'],
  { cwd: root },
);
await run.finish();
process.exit(code);
