import { describe, expect, it } from 'vitest';
import { BROWSER_GONE, engineReruns } from '../../scripts/engine-reruns.mjs';

const attempt = (status: string, message?: string) => ({ status, ...(message !== undefined && { error: { message } }) });
const reportOf = (status: string, results: object[]) => ({
  suites: [{ suites: [{ specs: [{ file: 'recorder.spec.ts', line: 120, title: '503 answers', tests: [{ projectName: 'webkit', status, results }] }] }] }],
});
// As Playwright reports tests/engines/driver/types.ts's BrowserGone.
const gone = `BrowserGone: ${BROWSER_GONE}: WebDriver POST /session/x/execute/async found no session`;

describe('which engine scenarios that passed on their second attempt are believed', () => {
  it('forgives a scenario whose only failed attempt was a browser that stopped answering under it', () => {
    expect(engineReruns(reportOf('flaky', [attempt('failed', gone), attempt('passed')]))).toEqual({
      rerunAfterBrowserStopped: ['recorder.spec.ts:120 [webkit] › 503 answers'],
      flaky: [],
    });
  });

  it('does not forgive a scenario that failed for any other reason, a timeout, or without saying why', () => {
    for (const failed of [
      attempt('failed', 'expect(received).toEqual(expected)'),
      attempt('timedOut', 'Test timeout of 90000ms exceeded.'),
      attempt('failed'),
    ]) {
      expect(engineReruns(reportOf('flaky', [failed, attempt('passed')]))).toEqual({
        rerunAfterBrowserStopped: [],
        flaky: ['recorder.spec.ts:120 [webkit] › 503 answers'],
      });
    }
  });

  it('does not forgive an attempt with a second error beside the browser that stopped answering (a request our server still owed)', () => {
    const owed = { status: 'failed', error: { message: gone }, errors: [{ message: gone }, { message: 'Not the browser alone: ... still open' }] };
    expect(engineReruns(reportOf('flaky', [owed, attempt('passed')]))).toEqual({
      rerunAfterBrowserStopped: [],
      flaky: ['recorder.spec.ts:120 [webkit] › 503 answers'],
    });
  });

  it('leaves alone scenarios that passed at once or failed every time (the step fails on those by its exit code)', () => {
    expect(engineReruns(reportOf('expected', [attempt('passed')]))).toEqual({ rerunAfterBrowserStopped: [], flaky: [] });
    expect(engineReruns(reportOf('unexpected', [attempt('failed', gone), attempt('failed', gone)]))).toEqual({ rerunAfterBrowserStopped: [], flaky: [] });
    expect(engineReruns(undefined)).toEqual({ rerunAfterBrowserStopped: [], flaky: [] });
  });
});
