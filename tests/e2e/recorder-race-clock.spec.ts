/**
 * The recorder says where the runner's race stands, in Debian's Chromium against the
 * real server: before it (race day as the race's city calls it, on a phone in another zone),
 * while it is run, and after it; the controls are the same in all three; and a page left open follows
 * a start the operator moves. Races are added and moved with the admin CLI, as an operator would.
 */
import type { Page } from '@playwright/test';
import { expect, test, type RunningServer } from './fixtures';
import { localSchedule } from '../../contract/raceClock.js';

// A phone in California: a Sydney morning start is the day before there, and must not be written so.
test.use({ timezoneId: 'America/Los_Angeles' });

async function addRace(server: RunningServer, id: string, name: string, date: string, start: string, timezone: string): Promise<void> {
  await server.admin('add-race', '--id', id, '--name', name, '--date', date, '--timezone', timezone, '--start', start);
}

/** Opens the link and checks the controls are all there and usable, whatever the race clock says. */
async function openLink(page: Page, server: RunningServer, race: string): Promise<void> {
  await page.goto(`/r/${await server.createLink('Alex', race)}`);
  await expect(page.getByRole('button', { name: 'Record', exact: true })).toBeEnabled();
  await expect(page.getByLabel('Marker')).toBeEnabled();
  await expect(page.getByLabel('Your name')).toBeEditable();
}

test('before the race: the day it is run, written for the race’s own time zone', async ({ page, server }) => {
  // 06:00 in Sydney on Sunday, September 20 is 13:00 on Saturday the 19th in California.
  await addRace(server, 'sydney-2099', 'Sydney Marathon', '2099-09-20', '06:00', 'Australia/Sydney');
  await openLink(page, server, 'sydney-2099');
  await expect(page.getByTestId('race-clock')).toHaveText('Alex runs on Sunday, September 20, 2099.');
  // Above the form.
  const clock = await page.getByTestId('race-clock').boundingBox();
  const form = await page.getByLabel('Marker').boundingBox();
  expect(clock!.y).toBeLessThan(form!.y);
});

// The sentence carries no race name, so no article has to fit one: 'My Marathon' and 'Berlin Marathon'
// read alike. The name is the header's line, as the operator wrote it.
test('a race named without a place reads right in every language: its name in the header, never after an article', async ({ page, server }) => {
  await addRace(server, 'my-2099', 'My Marathon', '2099-09-20', '06:00', 'Australia/Sydney');
  await openLink(page, server, 'my-2099');
  const sentences = {
    English: 'Alex runs on Sunday, September 20, 2099.',
    Deutsch: 'Alex läuft am Sonntag, 20. September 2099.',
    Español: 'Alex corre el domingo 20 de septiembre de 2099.',
    Français: 'Alex court le dimanche 20 septembre 2099.',
  };
  for (const [menu, sentence] of Object.entries(sentences)) {
    await page.getByTestId('language-menu').selectOption({ label: menu });
    await expect(page.getByTestId('race-clock')).toHaveText(sentence);
    await expect(page.locator('.rec-header')).toContainText('My Marathon · ');
  }
});

test('during the race: the runner is running now', async ({ page, server }) => {
  // Tokyo keeps one offset all year, so a start a minute ago is always a time its clocks showed.
  const { date, start } = localSchedule(Date.now() - 60_000, 'Asia/Tokyo');
  await addRace(server, 'tokyo-live', 'Tokyo Marathon', date, start, 'Asia/Tokyo');
  await openLink(page, server, 'tokyo-live');
  await expect(page.getByTestId('race-clock')).toHaveText('Alex is running now.');
});

test('after the race: it is over, and a note will wait in the keepsake', async ({ page, server }) => {
  await openLink(page, server, 'chicago-2025');
  await expect(page.getByTestId('race-clock')).toHaveText("Alex's race is over. Your note will wait in their keepsake.");
});

test('a start delayed after the planned gun: an open page says so within a minute, and the race is run at the new gun', async ({ page, server }) => {
  const planned = Date.now() - 60_000;
  const { date, start } = localSchedule(planned, 'Asia/Tokyo');
  await addRace(server, 'tokyo-delayed', 'Tokyo Marathon', date, start, 'Asia/Tokyo');
  await page.clock.install();
  await openLink(page, server, 'tokyo-delayed');
  const clock = page.getByTestId('race-clock');
  await expect(clock).toHaveText('Alex is running now.');

  // Fog: the gun goes half an hour later, told after the planned one.
  const delayed = localSchedule(planned + 30 * 60_000, 'Asia/Tokyo');
  await server.admin('edit-race', '--id', 'tokyo-delayed', '--date', delayed.date, '--start', delayed.start);
  await page.clock.runFor(61_000);
  await expect(clock).toHaveAttribute('data-when', 'upcoming');
  // Half an hour on the phone with no answer from the server: the page runs on the server's clock as
  // it last heard it, so it turns live at the new gun by itself. (An answer would set the
  // page back to the server's real time, which this test does not fast-forward.)
  await page.route('**/api/r/**', (route) => route.abort());
  await page.clock.runFor(30 * 60_000);
  await expect(clock).toHaveText('Alex is running now.');
});
