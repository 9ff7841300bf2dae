// The WebKit and Firefox scenarios (tests/engines) run once more after a failure, and the run is
// believed only in one case: every failed attempt ended because the browser itself stopped answering
// its driver under the test (tests/engines/driver/types.ts, BrowserGone: WebKit ends its automation
// session when its network or UI process ends, crash or hang; or a navigation never ended and the
// page then ran no script at all). Such an attempt proved nothing about the page either way; the
// next one, in a new browser, ran every assertion. A scenario that failed for any other reason and
// then passed is a flake, and fails the step as before.

/** The words BrowserGone's message starts with (after Playwright's "BrowserGone: " prefix, if any). */
export const BROWSER_GONE = 'The browser stopped answering under the test';

/**
 * Reads a Playwright JSON report: which flaky tests are forgiven (each failed attempt a browser that
 * ended), and which are not. Each entry names the test as `file:line [project] › title`.
 * @param {any} report
 * @returns {{ rerunAfterBrowserEnded: string[], flaky: string[] }}
 */
export function engineReruns(report) {
  const rerunAfterBrowserEnded = [];
  const flaky = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'flaky') continue;
        const name = `${spec.file}:${spec.line} [${test.projectName}] › ${spec.title}`;
        const failed = (test.results ?? []).filter((r) => r.status !== 'passed' && r.status !== 'skipped');
        // Every error of every failed attempt (a fixture may add one: tests/engines/fixtures.ts, a request our server still owed).
        const errorsOf = (r) => (r.errors?.length ? r.errors : r.error ? [r.error] : []);
        const browserEnded =
          failed.length > 0 && failed.every((r) => errorsOf(r).length > 0 && errorsOf(r).every((e) => String(e?.message ?? '').includes(BROWSER_GONE)));
        (browserEnded ? rerunAfterBrowserEnded : flaky).push(name);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  return { rerunAfterBrowserEnded, flaky };
}
