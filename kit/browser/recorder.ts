/** Drives the recorder in Chromium for the browser tests and the bench: a phone with a fake microphone, recording, and what arrived on the server. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, expect, type BrowserContext, type Page } from '@playwright/test';
import { chromiumArgs, chromiumPath, fakeMicrophoneArgs } from './chromium';
import type { RunningServer } from '../server';
import { recorderPath } from '../../contract/paths.js';

export const PHONE = { width: 390, height: 844 };

/** Profiles made here (about 4 MB each), removed when the test process ends: a test may start the browser again on one. */
const profiles = new Set<string>();
process.once('exit', () => {
  for (const dir of profiles) rmSync(dir, { recursive: true, force: true });
});

/**
 * A persistent profile, so a test can close the browser and start it again on the same data.
 * `locale` sets the browser's language (navigator.languages, Accept-Language); `userAgent` the phone
 * the page believes it runs on (an Android phone's, an iPhone's); `args` more of Chromium's flags
 * (the one trusting a test's HTTPS front, kit/caddy.ts).
 */
export async function launchPhone(
  wav: string,
  profile?: string,
  { denyMicrophone = false, locale, userAgent, args = [] }: { denyMicrophone?: boolean; locale?: string; userAgent?: string; args?: string[] } = {},
) {
  let dir = profile;
  if (!dir) profiles.add((dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-profile-'))));
  const mic = fakeMicrophoneArgs(wav);
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: chromiumPath,
    // Denying: no auto-accepting fake prompt, and Chromium answers every prompt with 'Block'.
    args: [...chromiumArgs, ...args, ...(denyMicrophone ? [...mic.filter((a) => a !== '--use-fake-ui-for-media-stream'), '--deny-permission-prompts'] : mic)],
    viewport: PHONE,
    ...(locale ? { locale } : {}),
    ...(userAgent ? { userAgent } : {}),
    // Granting a list denies what is not in it: Background Sync must be listed (it is allowed by default).
    permissions: denyMicrophone ? ['background-sync'] : ['microphone', 'background-sync'],
  });
  return { context, dir };
}

/** Opens the link and waits until the service worker controls the page (needed before going offline). */
export async function openRecorder(context: BrowserContext, server: RunningServer, token: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}${recorderPath(token)}`);
  // A worker that never takes control (its precache failed, e.g. dist/ rebuilt mid-test) fails here, not in a later step.
  await page
    .waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 })
    .catch(() => {
      throw new Error('The service worker did not take control of the recorder within 20 s (was dist/ rebuilt during the test?)');
    });
  await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
  return page;
}

export async function fillDetails(page: Page, marker = 'Mile 20', name = 'Sam'): Promise<void> {
  await page.getByLabel('Marker').selectOption({ label: marker });
  await page.getByLabel('Your name').fill(name);
}

/** The seconds the recording screen's clock shows (m:ss), or -1 when it shows none. */
export function elapsedShown(page: Page): Promise<number> {
  return page
    .getByTestId('elapsed')
    .textContent({ timeout: 1_000 })
    .then(
      (text) => {
        const m = /(\d+):(\d\d)/.exec(text ?? '');
        return m ? Number(m[1]) * 60 + Number(m[2]) : -1;
      },
      () => -1,
    );
}

/**
 * Waits until the screen's clock shows at least `seconds`. Waiting for one exact label misses it
 * when a busy machine (or a slow step in between, such as an accessibility scan) skips that tick.
 */
export async function waitForElapsed(page: Page, seconds: number): Promise<void> {
  await page.waitForFunction(
    (s) => {
      const m = /(\d+):(\d\d)/.exec(document.querySelector('[data-testid="elapsed"]')?.textContent ?? '');
      return m !== null && Number(m[1]) * 60 + Number(m[2]) >= s;
    },
    seconds,
    { timeout: (seconds + 20) * 1000 },
  );
}

/** Records until the screen's clock shows at least `seconds`, stops, and returns the seconds it showed at Stop. */
export async function record(page: Page, seconds: number): Promise<number> {
  await page.getByRole('button', { name: 'Record' }).click();
  await waitForElapsed(page, seconds);
  const shown = await elapsedShown(page);
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  return shown;
}

export function noteStates(page: Page) {
  return page.getByTestId('note-state');
}

interface ServerNote {
  id: string;
  marker: string;
  from: string;
  bytes: number;
  sha256: string;
  contentType: string;
  /** 'received', then 'converted' (or 'failed') once the worker has made the M4A. */
  status: string;
}

export async function serverNotes(server: RunningServer, token: string): Promise<ServerNote[]> {
  // '--token=' form: a token may start with '-' (base64url), which parseArgs would take for an option.
  const out = await server.admin('list-notes', `--token=${token}`);
  return JSON.parse(out.slice(out.indexOf('['))) as ServerNote[];
}

/** The audio bytes the page stored for a note, read back from IndexedDB. */
export async function pageAudioSha256(page: Page, noteId: string): Promise<string> {
  const base64 = await page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('milenotes');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const record = await new Promise<{ data: ArrayBuffer }>((resolve, reject) => {
      const get = db.transaction('audio').objectStore('audio').get(id);
      get.onsuccess = () => resolve(get.result as { data: ArrayBuffer });
      get.onerror = () => reject(get.error);
    });
    db.close();
    let binary = '';
    for (const byte of new Uint8Array(record.data)) binary += String.fromCharCode(byte);
    return btoa(binary);
  }, noteId);
  return createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
}

/** Every stored blob on the server whose SHA-256 is the given one. */
export async function blobsWithSha256(server: RunningServer, sha256: string): Promise<string[]> {
  const root = path.join(server.dataDir, 'blobs');
  const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  const matches: string[] = [];
  for (const file of files) {
    const full = path.join(file.parentPath, file.name);
    if (
      createHash('sha256')
        .update(await readFile(full))
        .digest('hex') === sha256
    )
      matches.push(full);
  }
  return matches;
}

/** Decoded duration and the share of 20 ms frames above -35 dBFS (speech ~0.75, beep ~0.13, silence 0). */
export async function analyseAudio(file: string): Promise<{ seconds: number; activeShare: number }> {
  const { stdout } = await promisify(execFile)('ffmpeg', ['-v', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const samples = new Int16Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.byteLength / 2));
  const frame = 320;
  let frames = 0;
  let active = 0;
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += (samples[j]! / 32768) ** 2;
    frames++;
    if (10 * Math.log10(sum / frame || 1e-12) > -35) active++;
  }
  return { seconds: samples.length / 16000, activeShare: frames ? active / frames : 0 };
}
