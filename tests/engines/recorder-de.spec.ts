/**
 * The recorder in German, in WebKit, Firefox and Chromium: chosen from the language
 * menu, kept across a reload by the engine's own storage, and a spoken note delivered through it.
 * The engines start in English (their system language), so the menu is what picks German here.
 */
import { serverNotes } from '../../kit/browser/recorder';
import { expect, test } from './fixtures';
import type { EnginePage } from './support/page';
import { useSpeechMicrophone } from './support/recorder';

/** Waits until the page speaks German: <html lang> and the Record button's German name. */
const waitForGerman = (tab: EnginePage) =>
  tab.waitFor(
    'the recorder in German',
    20_000,
    () => document.documentElement.lang === 'de' && [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Aufnehmen'),
  );

test('a note recorded in German is delivered, and the choice of German survives a reload', async ({ server, faults, tab, wav }) => {
  const token = await server.createLink('Alex', 'berlin-2025');
  await tab.engine.open(`${faults.url}/r/${token}`);
  await tab.waitFor('the service worker to control the recorder', 20_000, () => navigator.serviceWorker?.controller !== null);
  // The language menu, as the person uses it (the native setter and 'change', as React hears a choice).
  await tab.waitFor('the language menu to offer Deutsch', 10_000, () => {
    const menu = document.querySelector<HTMLSelectElement>('[data-testid="language-menu"]');
    if (!menu || ![...menu.options].some((o) => o.text === 'Deutsch')) return false;
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(menu, 'de');
    menu.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  });
  await waitForGerman(tab);
  await tab.engine.reload();
  await waitForGerman(tab);
  expect(await tab.run(() => document.querySelector('.rec-muted')?.textContent)).toBe('Berlin Marathon · 21. September 2025');

  await useSpeechMicrophone(tab, wav);
  await tab.select('Streckenpunkt', 'Meile 20');
  await tab.fill('Dein Name', 'Oma');
  await tab.click('Aufnehmen');
  await tab.waitFor('the recording clock to reach 0:03', 20_000, () => {
    const alert = document.querySelector('[role="alert"]')?.textContent;
    if (alert) throw new Error(`The page says: ${alert}`);
    return document.querySelector('[data-testid="elapsed"]')?.textContent?.includes('0:03') ?? false;
  });
  await tab.click('Stopp');
  await tab.click('Senden', 15_000);
  await tab.waitForTexts('note-state', ['Sicher bei uns']);
  expect(await tab.text('status-line')).toBe('Online.');
  expect(await serverNotes(server, token)).toMatchObject([{ marker: 'mi-20', from: 'Oma' }]);
});
