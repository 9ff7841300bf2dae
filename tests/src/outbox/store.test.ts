import { beforeEach, describe, expect, it } from 'vitest';
import {
  appendChunk,
  deleteNote,
  discardRecording,
  enqueueRecording,
  freeDeliveredAudio,
  getNote,
  listDrafts,
  listNotes,
  readAudio,
  readRecording,
  retryNote,
  saveLink,
  loadLink,
  markLinkGone,
  markLinkRemoved,
  sha256Hex,
  startRecording,
  updateNote,
  contentDigestHeader,
  DELIVERED_AUDIO_TTL_MS,
  RecordingMissingError,
  StorageFullError,
  asStorageError,
} from '../../../src/outbox/index.js';
import type { LinkInfo } from '../../../src/outbox/notes.js';
import { TOKEN, bytes, freshDb, queuedNote } from './helpers.js';

beforeEach(freshDb);

describe('the outbox store', () => {
  it('keeps each chunk of a recording as it arrives, so a crash leaves a playable partial note', async () => {
    await startRecording({ id: 'r1', token: TOKEN, contentType: 'audio/webm', startedAt: 1, updatedAt: 1 });
    await appendChunk('r1', 0, bytes(1, 2), 1000);
    await appendChunk('r1', 1, bytes(3), 2000);
    const drafts = await listDrafts(TOKEN);
    expect(drafts.map((d) => [d.id, d.updatedAt])).toEqual([['r1', 2000]]);
    const { data, chunks } = await readRecording('r1');
    expect(chunks).toBe(2);
    expect([...new Uint8Array(data)]).toEqual([1, 2, 3]);
  });

  it('joins chunks in sequence order even when they were written out of order', async () => {
    await startRecording({ id: 'r1', token: TOKEN, contentType: 'audio/webm', startedAt: 1, updatedAt: 1 });
    await appendChunk('r1', 10, bytes(3));
    await appendChunk('r1', 2, bytes(2));
    await appendChunk('r1', 0, bytes(1));
    expect([...new Uint8Array((await readRecording('r1')).data)]).toEqual([1, 2, 3]);
  });

  it('refuses a chunk for a recording that is not there', async () => {
    await expect(appendChunk('nope', 0, bytes(1))).rejects.toBeInstanceOf(RecordingMissingError);
  });

  it('turns a draft into a waiting note with its SHA-256 and removes the draft in the same step', async () => {
    const note = await queuedNote([bytes(1, 2), bytes(3)]);
    expect(note).toMatchObject({ state: 'waiting', attempts: 0, bytes: 3, token: TOKEN, marker: 'mi-20', from: 'Sam' });
    expect(note.sha256).toBe(await sha256Hex(bytes(1, 2, 3)));
    expect(note.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await listDrafts(TOKEN)).toEqual([]);
    expect([...new Uint8Array((await readAudio(note.id))!)]).toEqual([1, 2, 3]);
  });

  it('refuses to send an empty recording instead of queueing nothing', async () => {
    await startRecording({ id: 'r1', token: TOKEN, contentType: 'audio/webm', startedAt: 1, updatedAt: 1 });
    await expect(enqueueRecording('r1', { marker: 'mi-1', markerLabel: 'Mile 1', from: 'A', durationMs: 0 })).rejects.toThrow(/no longer on this phone/);
    expect(await listDrafts(TOKEN)).toHaveLength(1);
  });

  it('discards a draft and its chunks only when asked', async () => {
    await startRecording({ id: 'r1', token: TOKEN, contentType: 'audio/webm', startedAt: 1, updatedAt: 1 });
    await appendChunk('r1', 0, bytes(1));
    await discardRecording('r1');
    expect(await listDrafts(TOKEN)).toEqual([]);
    await expect(readRecording('r1')).rejects.toBeInstanceOf(RecordingMissingError);
  });

  it("lists a person's notes for one runner in the order they were made", async () => {
    const a = await queuedNote(undefined, 'mi-5', 5);
    const b = await queuedNote(undefined, 'mi-2', 2);
    expect((await listNotes(TOKEN)).map((n) => n.id)).toEqual([b.id, a.id]);
    expect(await listNotes('someone-else')).toEqual([]);
  });

  it('puts a failed note back to waiting on Retry, and leaves other states alone', async () => {
    const note = await queuedNote();
    expect(await retryNote(note.id)).toBeUndefined();
    await updateNote(note.id, (n) => ({ ...n, state: 'failed', lastError: 'x', nextAttemptAt: 99_999 }));
    expect(await retryNote(note.id, 5)).toMatchObject({ state: 'waiting', nextAttemptAt: 5 });
  });

  it('deletes a note and its audio when the person deletes it', async () => {
    const note = await queuedNote();
    await deleteNote(note.id);
    expect(await getNote(note.id)).toBeUndefined();
    expect(await readAudio(note.id)).toBeUndefined();
  });

  it('frees the audio of a delivered note after a week but keeps its small record', async () => {
    const note = await queuedNote();
    const waiting = await queuedNote();
    await updateNote(note.id, (n) => ({ ...n, state: 'delivered', deliveredAt: 1_000 }));
    expect(await freeDeliveredAudio(1_000 + DELIVERED_AUDIO_TTL_MS - 1)).toBe(0);
    expect(await freeDeliveredAudio(1_000 + DELIVERED_AUDIO_TTL_MS + 1)).toBe(1);
    expect(await getNote(note.id)).toMatchObject({ state: 'delivered', audioFreed: true, marker: 'mi-20' });
    expect(await readAudio(note.id)).toBeUndefined();
    expect(await readAudio(waiting.id)).toBeDefined();
  });

  it('keeps the link so a link opened once works offline', async () => {
    const link: LinkInfo = {
      runner: { displayName: 'Alex' },
      race: { id: 'c', name: 'C', date: '2025-10-12', units: ['mi'], timezone: 'America/Chicago', startsAt: '2025-10-12T12:30:00.000Z', when: 'past' },
      markers: [],
    };
    await saveLink(TOKEN, link, 7);
    expect(await loadLink(TOKEN)).toEqual({ token: TOKEN, link, savedAt: 7 });
  });

  it('marks a kept link gone and taken off once, keeping the first time, and keeps nothing for a link it does not have', async () => {
    const link: LinkInfo = {
      runner: { displayName: 'Alex' },
      race: { id: 'c', name: 'C', date: '2025-10-12', units: ['mi'], timezone: 'America/Chicago', startsAt: '2025-10-12T12:30:00.000Z', when: 'past' },
      markers: [],
    };
    await saveLink(TOKEN, link, 7);
    expect(await markLinkGone(TOKEN, 10)).toMatchObject({ goneAt: 10 });
    expect(await markLinkRemoved(TOKEN, 11)).toMatchObject({ goneAt: 10, removedAt: 11 });
    await markLinkGone(TOKEN, 20);
    await markLinkRemoved(TOKEN, 21);
    expect(await loadLink(TOKEN)).toEqual({ token: TOKEN, link, savedAt: 7, goneAt: 10, removedAt: 11 });
    expect(await markLinkGone('not-kept', 30)).toBeUndefined();
    expect(await loadLink('not-kept')).toBeUndefined();
  });

  it('writes the Content-Digest header as base64 of the SHA-256 (RFC 9530)', async () => {
    const hex = await sha256Hex(new TextEncoder().encode('abc').buffer as ArrayBuffer);
    expect(contentDigestHeader(hex)).toBe('sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:');
  });

  it("turns IndexedDB's quota failure into a message that says storage is full and what was kept", () => {
    const full = asStorageError(new DOMException('quota', 'QuotaExceededError'));
    expect(full).toBeInstanceOf(StorageFullError);
    expect((full as Error).message).toMatch(/storage is full.*already recorded is kept/);
    const other = new Error('other');
    expect(asStorageError(other)).toBe(other);
  });
});
