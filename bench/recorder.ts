/**
 * The recorder's benchmark, in real Chromium against the real server:
 * 1. bytes uploaded per second of speech with our settings vs Chrome's MediaRecorder defaults,
 *    on the same espeak-ng WAV fed to the fake microphone (aim: 4 KB/s or less);
 * 2. time from 'back online' to all of 10 queued notes delivered, with the page open.
 * Needs a build (npm run build). Run: npm run bench:recorder
 */
import { blobsWithSha256, analyseAudio, fillDetails, launchPhone, openRecorder, serverNotes } from '../kit/browser/recorder.js';
import { startServer } from '../kit/server.js';
import { speechWav } from '../stand-ins/speech.js';
import type { Page } from '@playwright/test';

const RECORD_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const QUEUED_NOTES = 10;

async function recordFor(page: Page, seconds: number): Promise<void> {
  await page.getByRole('button', { name: 'Record' }).click();
  await page
    .getByTestId('elapsed')
    .filter({ hasText: `0:${String(seconds).padStart(2, '0')}` })
    .waitFor({ timeout: (seconds + 10) * 1000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByRole('button', { name: 'Send' }).waitFor();
}

async function statesAre(page: Page, text: string, count: number, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    ([t, n]) => {
      const states = [...document.querySelectorAll('[data-testid="note-state"]')].map((e) => e.textContent);
      return states.length === n && states.every((s) => s === t);
    },
    [text, count] as const,
    { timeout: timeoutMs, polling: 20 },
  );
}

/** Chrome's defaults on the same fake microphone: getUserMedia({audio:true}), new MediaRecorder(stream). */
async function defaultsBytesPerSecond(page: Page, seconds: number): Promise<{ bytes: number; mimeType: string; bitsPerSecond: number }> {
  return page.evaluate(async (ms) => {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const recorder = new MediaRecorder(stream);
    let bytes = 0;
    recorder.ondataavailable = (e) => void (bytes += e.data.size);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(1000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    recorder.stop();
    await stopped;
    for (const t of stream.getTracks()) t.stop();
    return { bytes, mimeType: recorder.mimeType, bitsPerSecond: recorder.audioBitsPerSecond };
  }, seconds * 1000);
}

async function main(): Promise<void> {
  const server = await startServer({ UPLOADS_PER_ADDRESS: '1000000', OPEN_UPLOADS_PER_ADDRESS: '1000' });
  const { context } = await launchPhone(await speechWav());
  try {
    const token = await server.createLink('Bench');
    const page = await openRecorder(context, server, token);
    await fillDetails(page, 'Mile 1', 'Bench');

    // 1. Our settings, through the real screen and upload.
    await recordFor(page, RECORD_SECONDS);
    await page.getByRole('button', { name: 'Send' }).click();
    await statesAre(page, 'Safe with us', 1, 30_000);
    const [ours] = await serverNotes(server, token);
    const [file] = await blobsWithSha256(server, ours!.sha256);
    const decoded = await analyseAudio(file!);
    const oursPerSecond = ours!.bytes / decoded.seconds;
    const defaults = await defaultsBytesPerSecond(page, RECORD_SECONDS);
    const defaultsPerSecond = defaults.bytes / RECORD_SECONDS;

    // 2. Ten notes queued offline, then back online with the page open.
    await context.setOffline(true);
    for (let i = 0; i < QUEUED_NOTES; i++) {
      await recordFor(page, 1);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Record' }).waitFor();
    }
    await page.waitForFunction(
      (n) => [...document.querySelectorAll('[data-testid="note-state"]')].filter((e) => e.textContent === 'Saved on this phone').length === n,
      QUEUED_NOTES,
    );
    const start = performance.now();
    await context.setOffline(false);
    await statesAre(page, 'Safe with us', QUEUED_NOTES + 1, 120_000);
    const drainMs = performance.now() - start;
    const onServer = (await serverNotes(server, token)).length;

    const kb = (b: number) => (b / 1000).toFixed(2);
    console.log(`Recorder benchmark (speech WAV from espeak-ng, ${RECORD_SECONDS} s recordings, Chromium ${context.browser()?.version() ?? ''})`);
    console.log(
      `  ours     (${ours!.contentType}, 24 kbps hint, mono, voice processing): ${ours!.bytes} B over ${decoded.seconds.toFixed(2)} s decoded = ${kb(oursPerSecond)} KB/s (speech share ${decoded.activeShare.toFixed(2)})`,
    );
    console.log(
      `  defaults (${defaults.mimeType}, ${defaults.bitsPerSecond} bps): ${defaults.bytes} B over ${RECORD_SECONDS} s = ${kb(defaultsPerSecond)} KB/s`,
    );
    console.log(`  ours / defaults: ${(oursPerSecond / defaultsPerSecond).toFixed(2)}; aim <= 4 KB/s: ${oursPerSecond <= 4000 ? 'met' : 'NOT met'}`);
    console.log(
      `  back online -> ${QUEUED_NOTES} queued notes delivered (page open): ${drainMs.toFixed(0)} ms; notes on server: ${onServer} (expected ${QUEUED_NOTES + 1})`,
    );
    if (onServer !== QUEUED_NOTES + 1) process.exitCode = 1;
  } finally {
    await context.close();
    await server.stop();
  }
}

await main();
