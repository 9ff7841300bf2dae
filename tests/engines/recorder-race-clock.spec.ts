/**
 * The recorder's race clock in WebKit (Safari's engine), Firefox and Chromium: a race
 * that has not started is announced with its day, weekday and all, and the controls are there.
 * tests/e2e/recorder-race-clock.spec.ts covers the other two states in Chromium.
 */
import { expect, test } from './fixtures';

test('a race that has not started is announced with the day it is run', async ({ server, faults, tab }) => {
  // Each engine's worker has a server of its own, so the race is new to it.
  await server.admin(
    'add-race',
    '--id',
    'berlin-2099',
    '--name',
    'Berlin Marathon',
    '--date',
    '2099-09-27',
    '--timezone',
    'Europe/Berlin',
    '--start',
    '09:15',
    '--units',
    'mi,km',
  );
  const token = await server.createLink('Alex', 'berlin-2099');
  await tab.engine.open(`${faults.url}/r/${token}`);
  await tab.waitForTexts('race-clock', ['Alex runs on Sunday, September 27, 2099.'], 20_000);
  expect(
    await tab.run(() => {
      const enabled = (el: Element | null) => el !== null && !(el as HTMLButtonElement).disabled;
      const record = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Record') ?? null;
      return [enabled(record), enabled(document.querySelector('select')), enabled(document.querySelector('input'))];
    }),
  ).toEqual([true, true, true]);
});
