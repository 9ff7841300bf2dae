// The WebKit and Firefox scenarios (tests/engines) run once more after a failure, and the run is
// believed only in one case: every failed attempt ended because the browser itself stopped answering
// its driver under the test (tests/engines/driver/types.ts, BrowserGone: WebKit ends its automation
// session when its network or UI process ends, crash or hang; or a navigation never ended and the
// page then ran no script at all). Such an attempt proved nothing about the page either way; the
// next one, in a new browser, ran every assertion. A scenario that failed for any other reason and
// then passed is a flake, and fails the step as before.

/** The words BrowserGone's message starts with (after Playwright's "BrowserGone: " prefix, if any). */
export const BROWSER_GONE = 'The browser stopped answering under the test';

/** How npm test names a Playwright JSON report's test: `file:line [project] › title`. */
export const testName = (spec, test) => `${spec.file}:${spec.line} [${test.projectName}] › ${spec.title}`;

/** Every error of an attempt (a fixture may add one: tests/engines/fixtures.ts, a request our server still owed). */
const errorsOf = (result) => (result.errors?.length ? result.errors : result.error ? [result.error] : []);

/**
 * Reads a Playwright JSON report: which flaky tests are forgiven (every error of every failed attempt
 * a browser that stopped answering), and which are not, each by its testName.
 * @param {any} report
 * @returns {{ rerunAfterBrowserStopped: string[], flaky: string[] }}
 */
export function engineReruns(report) {
  const rerunAfterBrowserStopped = [];
  const flaky = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'flaky') continue;
        const failed = (test.results ?? []).filter((r) => r.status !== 'passed' && r.status !== 'skipped');
        const browserStopped =
          failed.length > 0 && failed.every((r) => errorsOf(r).length > 0 && errorsOf(r).every((e) => String(e?.message ?? '').includes(BROWSER_GONE)));
        (browserStopped ? rerunAfterBrowserStopped : flaky).push(testName(spec, test));
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  return { rerunAfterBrowserStopped, flaky };
}
