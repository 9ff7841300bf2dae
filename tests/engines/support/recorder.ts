/** The recorder's steps over any engine: open the link, fill the details, record, send; and a speech microphone. */
import { readFile } from 'node:fs/promises';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunningServer } from '../../../kit/server';
import type { EnginePage } from './page';

/** Opens the link and waits until the service worker controls the page and Record is offered. */
export async function openRecorder(page: EnginePage, origin: string, token: string): Promise<void> {
  await page.engine.open(`${origin}/r/${token}`);
  await waitForRecorder(page);
}

export async function waitForRecorder(page: EnginePage): Promise<void> {
  await page.waitFor('the service worker to control the recorder', 20_000, () => navigator.serviceWorker?.controller !== null);
  await page.waitFor("the 'Record' button", 10_000, () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Record'));
}

export async function fillDetails(page: EnginePage, marker: string, name: string): Promise<void> {
  await page.select('Marker', marker);
  await page.fill('Your name', name);
}

/** Starts recording and waits until the page's clock shows `seconds`. */
export async function recordFor(page: EnginePage, seconds: number): Promise<void> {
  await page.click('Record');
  const shown = `0:${String(seconds).padStart(2, '0')}`;
  await page.waitFor(
    `the recording clock to reach ${shown}`,
    (seconds + 10) * 1000,
    (want) => {
      const alert = document.querySelector('[role="alert"]')?.textContent;
      if (alert) throw new Error(`The page says: ${alert}`);
      return document.querySelector('[data-testid="elapsed"]')?.textContent?.includes(want) ?? false;
    },
    shown,
  );
}

/** Records for `seconds`, stops, and waits for the review (Send offered). */
export async function record(page: EnginePage, seconds: number): Promise<void> {
  await recordFor(page, seconds);
  await page.click('Stop');
  await page.waitFor("the 'Send' button after stopping", 15_000, () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Send'));
}

/** Ids of the notes listed on the page, in order. */
export function listedNoteIds(page: EnginePage): Promise<string[]> {
  return page.run(() => [...document.querySelectorAll('[data-testid="note"]')].map((n) => n.getAttribute('data-note-id')!));
}

/**
 * Feeds the page's getUserMedia from a speech WAV, so every engine's own MediaRecorder, with our
 * settings, encodes speech (WebKit's mock device and Firefox's fake stream only play tones).
 * Web Audio where an AudioContext runs (WebKit, Chromium); headless Firefox has no audio device,
 * so its AudioContext never leaves 'suspended', and there an <audio> element's captured stream
 * plays the file instead. Installed after load; the recorder asks for the microphone on 'Record'.
 */
export async function useSpeechMicrophone(page: EnginePage, wav: string): Promise<void> {
  const base64 = (await readFile(wav)).toString('base64');
  await page.run((data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<'late'>((r) => setTimeout(() => r('late'), ms))]);
    const withCleanup = (stream: MediaStream, cleanup: () => void) => {
      const [track] = stream.getAudioTracks();
      const stop = track!.stop.bind(track);
      track!.stop = () => {
        stop();
        cleanup();
      };
      return stream;
    };
    navigator.mediaDevices.getUserMedia = async () => {
      const context = new AudioContext();
      if ((await within(context.resume(), 2_000)) !== 'late' && context.state === 'running') {
        const source = context.createBufferSource();
        source.buffer = await context.decodeAudioData(bytes.buffer.slice(0));
        source.loop = true;
        const destination = context.createMediaStreamDestination();
        destination.channelCount = 1;
        source.connect(destination);
        source.start();
        return withCleanup(destination.stream, () => void context.close());
      }
      void context.close();
      const url = URL.createObjectURL(new Blob([bytes], { type: 'audio/wav' }));
      const audio = new Audio(url);
      audio.loop = true;
      const element = audio as HTMLAudioElement & { mozCaptureStream?: () => MediaStream; captureStream?: () => MediaStream };
      const stream = element.mozCaptureStream ? element.mozCaptureStream() : element.captureStream!();
      await audio.play();
      return withCleanup(stream, () => {
        audio.pause();
        URL.revokeObjectURL(url);
      });
    };
    return true;
  }, base64);
}

/** The server's converted file (AAC in M4A) of a note, wherever the blob store keeps it. */
export async function convertedFile(server: RunningServer, noteId: string): Promise<string> {
  const entries = await readdir(server.dataDir, { recursive: true, withFileTypes: true });
  const found = entries.find((e) => e.isFile() && e.name === `${noteId}.m4a`);
  if (!found) throw new Error(`No converted file ${noteId}.m4a under ${server.dataDir}`);
  return path.join(found.parentPath, found.name);
}
