/**
 * The home screen's list in WebKit, Safari's engine: /home-screen lists the runners
 * this phone opened from what the page keeps in IndexedDB, with the server out of reach (the proxy
 * refuses every connection), as an iPhone's home-screen app shows it with no signal.
 */
import { expect, test } from './fixtures';
import { openRecorder } from './support/recorder';

test("the home-screen start lists this phone's runners from its own storage, with the server out of reach", async ({ server, faults, tab }) => {
  const [alex, jo] = await Promise.all([server.createLink('Alex', 'berlin-2025'), server.createLink('Jo', 'chicago-2025')]);
  await openRecorder(tab, faults.url, alex);
  await openRecorder(tab, faults.url, jo);
  faults.down();
  await tab.engine.open(`${faults.url}/home-screen`);
  await tab.waitFor('the list to say the server is out of reach', 20_000, () => document.querySelector('[data-testid="home-offline"]') !== null);
  // Both races are over: the latest start first (Chicago, Oct 12, after Berlin, Sep 21).
  await tab.waitForTexts('runner-name', ['Jo', 'Alex']);
  await tab.waitForTexts('runner-race', ['Chicago Marathon · over', 'Berlin Marathon · over']);
  expect(await tab.run(() => [...document.querySelectorAll('a')].map((a) => a.getAttribute('href')))).toEqual([`/r/${jo}`, `/r/${alex}`]);
});
