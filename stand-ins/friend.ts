/**
 * A friend at the venue for the race-day bench: a real spoken note of the given length (WebM/Opus
 * at a phone's bitrate, made with espeak-ng and ffmpeg once per length), sent as the recorder does
 * (PUT with Content-Digest, the same note id on every try) and tried again until the server keeps it.
 * The one place a friend's note PUT is spelled (its path, its headers): the bench's crowds and
 * sections send theirs through it.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { contentDigestHeader } from '../contract/contentDigest.js';
import { notePath } from '../contract/paths.js';
import { speechWav } from './speech.js';

export interface FriendNote {
  id: string;
  seconds: number;
  contentType: string;
  audio: Buffer;
}

/** One file per length, made once even when several friends ask for it at once. */
const made = new Map<number, Promise<string>>();

async function makeSpeech(seconds: number): Promise<string> {
  const file = path.join(os.tmpdir(), `milenotes-friend-${seconds}s.webm`);
  if (existsSync(file)) return file;
  const wav = await speechWav();
  // Another process may make the same file: each writes its own part, and the rename is atomic.
  const part = `${file}.${process.pid}.${randomUUID()}.part`;
  await promisify(execFile)('ffmpeg', [
    '-y',
    '-loglevel',
    'error',
    '-stream_loop',
    '-1',
    '-i',
    wav,
    '-t',
    String(seconds),
    '-c:a',
    'libopus',
    '-b:a',
    '24k',
    '-ac',
    '1',
    '-f',
    'webm',
    part,
  ]);
  await rename(part, file);
  return file;
}

/** A spoken note of `seconds` (the speech looped), as a phone's recorder makes it: Opus at 24 kbit/s in WebM. */
export async function friendNote(seconds: number): Promise<FriendNote> {
  if (!made.has(seconds)) made.set(seconds, makeSpeech(seconds));
  const file = await made.get(seconds)!;
  return { id: randomUUID(), seconds, contentType: 'audio/webm;codecs=opus', audio: await readFile(file) };
}

export interface SendOptions {
  marker: string;
  from: string;
  /** Give up (and report it) after this long. */
  deadlineMs: number;
  /** Wait between tries, as the outbox backs off (capped). */
  retryMs?: number;
}

/** Where a note is PUT, with the marker it was said at and who said it. */
export function notePutPath(token: string, noteId: string, marker: string, from: string): string {
  return `${notePath(token, noteId)}?marker=${encodeURIComponent(marker)}&from=${encodeURIComponent(from)}`;
}

/** The headers the recorder sends with a whole note: its type and its Content-Digest. */
export function noteHeaders(note: { contentType: string; audio: Uint8Array }): Record<string, string> {
  return { 'content-type': note.contentType, 'content-digest': contentDigestHeader(createHash('sha256').update(note.audio).digest('hex')) };
}

/** Sends the note once, as the recorder does (one PUT with Content-Digest); the answer's body is the caller's to read. */
export function putNote(
  baseUrl: string,
  token: string,
  note: Pick<FriendNote, 'id' | 'contentType' | 'audio'>,
  marker: string,
  from: string,
  signal?: AbortSignal,
): Promise<Response> {
  const url = `${baseUrl}${notePutPath(token, note.id, marker, from)}`;
  return fetch(url, { method: 'PUT', headers: noteHeaders(note), body: new Uint8Array(note.audio), signal });
}

/** Sends until a 2xx; resolves to when the server answered it stored (epoch ms), or undefined if the deadline passed. */
export async function sendNote(baseUrl: string, token: string, note: FriendNote, opts: SendOptions): Promise<number | undefined> {
  const giveUpAt = Date.now() + opts.deadlineMs;
  let wait = opts.retryMs ?? 1_000;
  while (Date.now() < giveUpAt) {
    try {
      const res = await putNote(baseUrl, token, note, opts.marker, opts.from, AbortSignal.timeout(Math.max(1, giveUpAt - Date.now())));
      await res.arrayBuffer();
      if (res.ok) return Date.now();
      if (res.status < 500 && res.status !== 408 && res.status !== 429) throw new Error(`the server refused a friend's note: ${res.status}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('the server refused')) throw err;
    }
    await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(0, giveUpAt - Date.now()))));
    wait = Math.min(wait * 2, 8_000);
  }
  return undefined;
}
