/**
 * The first tap in every engine (playwright.engines.config.ts): a first visit to a link, Record
 * tapped the moment it works on the screen the server drew, with React's files held at the proxy;
 * React then takes the screen over and carries the recording on; Stop and Send under React. One
 * note, of the full length, bytes intact, the microphone asked for once.
 */
import { readFile } from 'node:fs/promises';
import { blobsWithSha256, serverNotes } from '../../kit/browser/recorder';
import { expect, test } from './fixtures';
import { MAY_LOSE_SECONDS, noteLengths } from './support/noteLength';
import type { EnginePage } from './support/page';
import { convertedFile, fillDetails, useSpeechMicrophone } from './support/recorder';

/** React and the recorder's chunks: everything the page runs after its first screen. */
const REACT_FILES = /^\/assets\/(react|recorder)-[^/]+\.js$/;

/** Waits until the recording's clock shows at least `seconds`; a refusal on the page fails at once. */
function waitForElapsed(tab: EnginePage, seconds: number): Promise<unknown> {
  return tab.waitFor(
    `the recording clock to reach ${seconds} s`,
    (seconds + 15) * 1000,
    (want) => {
      const alert = document.querySelector('[role="alert"]')?.textContent;
      if (alert) throw new Error(`The page says: ${alert}`);
      const shown = /(\d+):(\d\d)/.exec(document.querySelector('[data-testid="elapsed"]')?.textContent ?? '');
      return shown !== null && Number(shown[1]) * 60 + Number(shown[2]) >= want;
    },
    seconds,
  );
}

/** The seconds the recording's clock shows. */
const clockShown = (tab: EnginePage) =>
  tab.run(() => {
    const shown = /(\d+):(\d\d)/.exec(document.querySelector('[data-testid="elapsed"]')?.textContent ?? '');
    return shown ? Number(shown[1]) * 60 + Number(shown[2]) : -1;
  });

/** Whether React runs the screen yet. */
const reactRuns = (tab: EnginePage) => tab.run(() => document.querySelector('main[data-react]') !== null);

test.describe('the first tap in every engine', () => {
  test('Record works before React, React carries the recording on, and the note is one, of the full length, bytes intact', async ({
    server,
    faults,
    tab,
    wav,
    engineName,
  }, testInfo) => {
    test.setTimeout(180_000);
    const token = await server.createLink('Alex');
    const react = faults.hold(REACT_FILES);
    await tab.engine.open(`${faults.url}/r/${token}`);
    await tab.waitFor("the drawn screen's Record to work", 20_000, () => {
      const button = document.querySelector<HTMLButtonElement>('button[data-action="record"]');
      return button?.textContent?.trim() === 'Record' && !button.disabled;
    });
    expect(await reactRuns(tab), 'React has not run yet').toBe(false);
    await useSpeechMicrophone(tab, wav);
    await tab.run(() => {
      const seen = window as unknown as { microphoneAsked: number };
      seen.microphoneAsked = 0;
      const ask = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = (constraints) => {
        seen.microphoneAsked++;
        return ask(constraints);
      };
      (document.querySelector('h1') as unknown as { drawn: boolean }).drawn = true;
    });
    await fillDetails(tab, 'Mile 20', 'Sam');
    const tapped = Date.now();
    await tab.click('Record');
    await waitForElapsed(tab, 3);
    expect(await reactRuns(tab), 'still no React: its files are held').toBe(false);
    expect(react.held(), "React's files were asked for").toBeGreaterThan(0);
    const beforeReact = await clockShown(tab);

    react.release();
    await tab.waitFor('React to take the screen over', 60_000, () => document.querySelector('main[data-react]') !== null);
    expect(await tab.run(() => (document.querySelector('h1') as unknown as { drawn?: boolean }).drawn), 'React took over the drawn elements').toBe(true);
    expect(await clockShown(tab), 'the same recording goes on under React: its clock did not start again').toBeGreaterThanOrEqual(beforeReact);
    await waitForElapsed(tab, 8);
    const shown = await clockShown(tab);
    const stopped = Date.now();
    await tab.click('Stop');
    await tab.waitFor("the 'Send' button after stopping", 15_000, () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Send'));
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Safe with us'], 60_000);

    const notes = await serverNotes(server, token);
    expect(notes, 'one note').toHaveLength(1);
    const [note] = notes;
    expect(note).toMatchObject({ marker: 'mi-20', from: 'Sam' });
    const [kept] = await tab.outboxNotes();
    expect(note!.sha256, 'the server holds the bytes the page recorded').toBe(await tab.outboxAudioSha256(kept!.id));
    await expect
      .poll(async () => (await serverNotes(server, token))[0]?.status, { timeout: 30_000, message: 'the server converts the note' })
      .toBe('converted');
    const [original] = await blobsWithSha256(server, note!.sha256);
    await testInfo.attach('recorded by the engine', { body: await readFile(original!) });
    const seconds = kept!.durationMs / 1000;
    const length = await noteLengths(original!, await convertedFile(server, note!.id), testInfo.outputPath('first-tap.mp4'));
    const line = `${engineName}: clock ${shown} s at Stop, page clock ${seconds.toFixed(3)} s, tap to stop ${((stopped - tapped) / 1000).toFixed(1)} s (the microphone's start included), converted ${length.converted.toFixed(3)} s`;
    testInfo.annotations.push({ type: 'first tap', description: line });
    console.log(`[first tap] ${line}`);
    // From the tap under the first screen's script to Stop under React's, one recording (one
    // microphone, one clock): all of it, less the recorder's own start-up (its start event).
    expect(shown).toBeGreaterThanOrEqual(8);
    expect(seconds, 'the note is as long as the clock said at Stop').toBeGreaterThan(shown - 1);
    expect(length.converted, 'the converted note is as long as the recording').toBeGreaterThan(seconds - MAY_LOSE_SECONDS[engineName]);
    expect(length.activeShare, 'the converted note holds speech, not silence').toBeGreaterThan(0.5);
    expect(await tab.run(() => (window as unknown as { microphoneAsked: number }).microphoneAsked), 'the microphone is asked for once').toBe(1);
  });
});
