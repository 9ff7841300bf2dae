// npm test: every test. Lints and checks the format (Biome), type-checks (beside the next step), runs the unit and server tests (vitest, with real
// SQLite, PostgreSQL and ffmpeg), builds the site, then runs the browser tests in Chromium and the
// recorder's journey in WebKit and Firefox (tests/engines).
// Each step runs even when an earlier one failed (except the browser tests, which need the
// build), and the last line sums them up. On a Node older than package.json's "engines" it says which
// Node to get before anything runs (./require-node.mjs, first; the other imports are Node's own and ours).
// Stopped (Ctrl-C, SIGTERM), it stops everything its steps started and removes its temp folder (./test-run.mjs).
import './require-node.mjs';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineReruns, testName } from './engine-reruns.mjs';
import { startRun } from './test-run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(root, 'test-results');
mkdirSync(results, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** Each step's seconds, said again at the end, where CI shows them (CI must stay under 25 minutes). */
const took = [];

const testRun = startRun();

async function run(title, command, args, env = {}) {
  console.log(`\n=== ${title}`);
  const started = Date.now();
  const status = await testRun.step(command, args, { cwd: root, env });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  took.push(`${title.replace(/ \(.*/, '')} ${seconds} s`);
  console.log(`=== ${title}: ${status === 0 ? 'ok' : 'FAILED'} in ${seconds} s`);
  return status === 0;
}

/**
 * A step run beside the next one, its output held in a file and shown when `finish` is called:
 * the type check uses one core while vitest's first server tests mostly wait.
 */
function runBeside(title, command, args) {
  const started = Date.now();
  const log = path.join(results, `${title.replace(/\W+/g, '-')}.log`);
  const fd = openSync(log, 'w');
  const exited = testRun
    .step(command, args, { cwd: root, stdout: fd, stderr: fd })
    .then((status) => ({ status, seconds: ((Date.now() - started) / 1000).toFixed(0) }));
  closeSync(fd);
  return async function finish() {
    const { status, seconds } = await exited;
    console.log(`\n=== ${title} (beside the next step)`);
    process.stdout.write(readFileSync(log, 'utf8'));
    took.push(`${title} ${seconds} s`);
    console.log(`=== ${title}: ${status === 0 ? 'ok' : 'FAILED'} in ${seconds} s`);
    return status === 0;
  };
}

/** A test run's JSON report, or undefined when the step wrote none. */
function report(file) {
  try {
    return JSON.parse(readFileSync(path.join(results, file), 'utf8'));
  } catch {
    return undefined;
  }
}

function count(file, read) {
  const found = report(file);
  return found ? read(found) : { passed: 0, failed: 0 };
}

// Biome: the formatter's layout and the lint rules that catch real faults here (floating promises, unused
// code, `any`); a few seconds, so it runs first and alone.
const lintOk = await run('lint and format (Biome)', bin('biome'), ['ci', '--max-diagnostics=50', '.']);
const typeCheck = runBeside('type check', bin('tsc'), ['-b']);
const unitOk = await run('unit and server tests (vitest)', bin('vitest'), [
  'run',
  // What a passing test printed (its server's log, its measurements) is shown only when it fails.
  '--silent=passed-only',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${path.join(results, 'vitest.json')}`,
]);
const typesOk = await typeCheck();
const buildOk = await run('build', process.execPath, ['scripts/build.mjs']);
const e2eOk = buildOk && (await run('browser tests (Playwright, Chromium)', bin('playwright'), ['test'], { CI: 'true' }));
// Chromium's journey is covered above; `npx playwright test -c playwright.engines.config.ts --project=chromium` runs it here too.
const enginesOk =
  buildOk &&
  (await run(
    'recorder in WebKit and Firefox (tests/engines)',
    bin('playwright'),
    ['test', '-c', 'playwright.engines.config.ts', '--project=webkit', '--project=firefox'],
    { CI: 'true' },
  ));
await testRun.finish();

const vitest = count('vitest.json', (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) }));
const e2e = count('e2e.json', (r) => ({ passed: r.stats.expected, failed: r.stats.unexpected + r.stats.flaky }));
// A WebKit or Firefox scenario is believed on its second attempt only when its browser stopped answering under the first (scripts/engine-reruns.mjs).
const reruns = engineReruns(report('engines.json'));
const engines = count('engines.json', (r) => ({
  passed: r.stats.expected + reruns.rerunAfterBrowserStopped.length,
  failed: r.stats.unexpected + reruns.flaky.length,
}));
if (reruns.rerunAfterBrowserStopped.length > 0) {
  console.log(`\npassed in a new browser after the browser stopped answering under the first attempt:\n  ${reruns.rerunAfterBrowserStopped.join('\n  ')}`);
}
const failedSteps = [lintOk, typesOk, unitOk, buildOk, e2eOk, enginesOk && reruns.flaky.length === 0].filter((ok) => !ok).length;

// CI shows only the end of this output: name every failed test there, with the first line of why.
const firstLine = (text) =>
  String(text ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the ANSI colour codes this strips from a failure's first line.
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((l) => l.trim()) ?? '';
const failures = [
  ...(report('vitest.json')?.testResults ?? []).flatMap((file) => {
    const where = path.relative(root, file.name);
    const tests = file.assertionResults.filter((t) => t.status === 'failed').map((t) => `${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    return tests.length > 0 || file.status !== 'failed' ? tests : [`${where}: ${firstLine(file.message)}`];
  }),
  ...['e2e.json', 'engines.json'].flatMap((file) => {
    const found = [];
    const walk = (suite) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          if (test.status !== 'unexpected' && test.status !== 'flaky') continue;
          const name = testName(spec, test);
          if (file === 'engines.json' && reruns.rerunAfterBrowserStopped.includes(name)) continue;
          const error = test.results?.find((x) => x.error)?.error?.message;
          found.push(`${name} (${test.status}): ${firstLine(error)}`);
        }
      }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of report(file)?.suites ?? []) walk(suite);
    return found;
  }),
];
if (failures.length > 0) console.log(`\nfailed tests:\n${failures.map((f) => `  ${f.slice(0, 400)}`).join('\n')}`);
console.log(
  `\nvitest: ${vitest.passed} passed, ${vitest.failed} failed; browser: ${e2e.passed} passed, ${e2e.failed} failed; ` +
    `engines: ${engines.passed} passed, ${engines.failed} failed`,
);
console.log(`steps: ${took.join(', ')}`);
console.log(
  `tests: ${vitest.passed + e2e.passed + engines.passed} passed, ${vitest.failed + e2e.failed + engines.failed + (typesOk ? 0 : 1) + (lintOk ? 0 : 1)} failed`,
);
process.exit(failedSteps === 0 ? 0 : 1);
