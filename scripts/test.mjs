// npm test: every test. Type-checks, runs the unit and server tests (vitest, with real
// SQLite, PostgreSQL and ffmpeg), builds the site, then runs the browser tests in Chromium and the
// recorder's journey in WebKit and Firefox (tests/engines).
// Each step runs even when an earlier one failed (except the browser tests, which need the
// build), and the last line sums them up.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(root, 'test-results');
mkdirSync(results, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(title, command, args, env = {}) {
  console.log(`\n=== ${title}`);
  const started = Date.now();
  const { status } = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  console.log(`=== ${title}: ${status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return status === 0;
}

function count(file, read) {
  try {
    return read(JSON.parse(readFileSync(path.join(results, file), 'utf8')));
  } catch {
    return { passed: 0, failed: 0 };
  }
}

const typesOk = run('type check', bin('tsc'), ['-b']);
const unitOk = run('unit and server tests (vitest)', bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${path.join(results, 'vitest.json')}`,
]);
const buildOk = run('build', process.execPath, ['scripts/build.mjs']);
const e2eOk = buildOk && run('browser tests (Playwright, Chromium)', bin('playwright'), ['test'], { CI: 'true' });
// Chromium's journey is covered above; `npx playwright test -c playwright.engines.config.ts --project=chromium` runs it here too.
const enginesOk =
  buildOk &&
  run('recorder in WebKit and Firefox (tests/engines)', bin('playwright'), ['test', '-c', 'playwright.engines.config.ts', '--project=webkit', '--project=firefox'], { CI: 'true' });

const vitest = count('vitest.json', (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) }));
const e2e = count('e2e.json', (r) => ({ passed: r.stats.expected, failed: r.stats.unexpected + r.stats.flaky }));
const engines = count('engines.json', (r) => ({ passed: r.stats.expected, failed: r.stats.unexpected + r.stats.flaky }));
const failedSteps = [typesOk, unitOk, buildOk, e2eOk, enginesOk].filter((ok) => !ok).length;
console.log(
  `\nvitest: ${vitest.passed} passed, ${vitest.failed} failed; browser: ${e2e.passed} passed, ${e2e.failed} failed; ` +
    `engines: ${engines.passed} passed, ${engines.failed} failed`,
);
console.log(`tests: ${vitest.passed + e2e.passed + engines.passed} passed, ${vitest.failed + e2e.failed + engines.failed + (typesOk ? 0 : 1)} failed`);
process.exit(failedSteps === 0 ? 0 : 1);
