/**
 * Section 2, audio: the same espeak-ng speech WAV through Chromium's fake microphone, recorded once
 * by our recorder screen (and uploaded) and once by MediaRecorder with Chrome's defaults; bytes per
 * second of decoded audio, and the share of 20 ms frames above -35 dBFS to show both kept the speech.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { analyseAudio, blobsWithSha256, fillDetails, launchPhone, noteStates, openRecorder, serverNotes } from '../../kit/browser/recorder.js';
import { speechWav } from '../../stand-ins/speech.js';
import type { Section } from '../report.js';
import { record } from '../../kit/browser/recorder.js';
import type { BenchContext } from './context.js';

/** Chrome's defaults on the same microphone: getUserMedia({ audio: true }), new MediaRecorder(stream). */
async function recordWithDefaults(page: Page, seconds: number): Promise<{ audio: Buffer; mimeType: string; bitsPerSecond: number }> {
  const result = await page.evaluate(async (ms) => {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const recorder = new MediaRecorder(stream);
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => chunks.push(e.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(1000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    recorder.stop();
    await stopped;
    for (const t of stream.getTracks()) t.stop();
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    return { base64: btoa(binary), mimeType: recorder.mimeType, bitsPerSecond: recorder.audioBitsPerSecond };
  }, seconds * 1000);
  return { audio: Buffer.from(result.base64, 'base64'), mimeType: result.mimeType, bitsPerSecond: result.bitsPerSecond };
}

export async function audioSection(ctx: BenchContext): Promise<Section> {
  const seconds = ctx.smoke ? 2 : 10;
  const { context, dir: profile } = await launchPhone(await speechWav());
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-audio-'));
  try {
    const token = await ctx.server.createLink('Bench');
    const page = await openRecorder(context, ctx.server, token);
    await fillDetails(page, 'Mile 1', 'Bench');
    ctx.log(`audio: recording ${seconds} s with our recorder`);
    await record(page, seconds);
    await page.getByRole('button', { name: 'Send' }).click();
    await noteStates(page).filter({ hasText: 'Safe with us' }).first().waitFor({ timeout: 30_000 });
    const [note] = await serverNotes(ctx.server, token);
    if (!note) throw new Error('the recorded note did not reach the server');
    const [file] = await blobsWithSha256(ctx.server, note.sha256);
    if (!file) throw new Error(`the server has no stored file with the note's SHA-256 ${note.sha256}`);
    const ours = await analyseAudio(file);

    ctx.log(`audio: recording ${seconds} s with MediaRecorder defaults`);
    const defaults = await recordWithDefaults(page, seconds);
    const defaultsFile = path.join(scratch, 'defaults.webm');
    await writeFile(defaultsFile, defaults.audio);
    const theirs = await analyseAudio(defaultsFile);

    const oursRate = note.bytes / ours.seconds / 1000;
    const theirRate = defaults.audio.length / theirs.seconds / 1000;
    const sameSpeech = Math.abs(ours.activeShare - theirs.activeShare) <= 0.1;
    return {
      id: 'audio',
      title: '2. Audio: bytes per second of speech',
      baseline: `MediaRecorder with Chrome's defaults (${defaults.mimeType}, ${defaults.bitsPerSecond} bps hint) on the same fake microphone and WAV.`,
      rows: [
        { metric: 'bytes per second of speech', ours: oursRate, baseline: theirRate, unit: 'KB/s', digits: 2, aim: { text: '<= 4 KB/s', met: oursRate <= 4 } },
        {
          metric: 'speech share (20 ms frames > -35 dBFS)',
          ours: ours.activeShare,
          baseline: theirs.activeShare,
          unit: '',
          digits: 2,
          aim: { text: 'within 0.10 of baseline', met: sameSpeech },
        },
        { metric: 'decoded length', ours: ours.seconds, baseline: theirs.seconds, unit: 's', digits: 2 },
      ],
      chart: {
        kind: 'bars',
        title: `Bytes per second for the same ${seconds} s of speech`,
        unit: 'KB/s',
        series: ['ours', "Chrome's MediaRecorder defaults"],
        groups: [{ label: 'KB per second', values: [oursRate, theirRate] }],
        line: { value: 4, label: 'aim: 4 KB/s' },
      },
      notes: [
        `Ours: ${note.contentType}, ${note.bytes} B as stored by the server after a real upload; decoded with ffmpeg for length and speech share.`,
        `Defaults: ${defaults.audio.length} B. KB = 1000 bytes.`,
      ],
    };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}
