/** Owns every read and write of the outbox: drafts, chunks, notes, audio, kept links. */
import type { AudioChunk, CachedLink, LinkInfo, OutboxNote, RecordingDraft } from './notes.js';
import { OUTBOX_CHANNEL, type OutboxBroadcast } from '../../contract/messages.js';
import type { StoreValue } from 'idb';
import { outboxDb, type OutboxSchema } from './db.js';
import { concatChunks, sha256Hex } from './digest.js';
import { RecordingMissingError, asStorageError } from './errors.js';

/** How long a delivered note keeps its audio, so the person can still play what they sent. */
export const DELIVERED_AUDIO_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function announce(message: OutboxBroadcast): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(OUTBOX_CHANNEL);
  channel.postMessage(message);
  channel.close();
}

async function write<T>(run: () => Promise<T>, noteId?: string): Promise<T> {
  try {
    const result = await run();
    announce(noteId === undefined ? { type: 'outbox-changed' } : { type: 'outbox-changed', noteId });
    return result;
  } catch (error) {
    throw asStorageError(error);
  }
}

export async function saveLink(token: string, link: LinkInfo, now = Date.now()): Promise<void> {
  const db = await outboxDb();
  const record: CachedLink = { token, link, savedAt: now };
  await db.put('links', record).catch((e: unknown) => Promise.reject(asStorageError(e)));
}

export async function loadLink(token: string): Promise<CachedLink | undefined> {
  return (await outboxDb()).get('links', token);
}

/** Every link kept on this phone: the runners it records for (the home screen's list). */
export async function allLinks(): Promise<CachedLink[]> {
  return (await outboxDb()).getAll('links');
}

/**
 * Read-modify-write of one record in one transaction: `change` returns the new record, or undefined
 * to leave it as it is; undefined when there is none. `noteId`: the note the change announces.
 */
async function rewrite<S extends 'links' | 'notes'>(
  store: S,
  key: string,
  change: (value: StoreValue<OutboxSchema, S>) => StoreValue<OutboxSchema, S> | undefined,
  noteId?: string,
): Promise<StoreValue<OutboxSchema, S> | undefined> {
  const db = await outboxDb();
  return write(async () => {
    const tx = db.transaction(store, 'readwrite');
    const current = await tx.store.get(key);
    const next = current && change(current);
    if (next) await tx.store.put(next);
    await tx.done;
    return next;
  }, noteId);
}

/** Read-modify-write of one kept link in one transaction; returns undefined if it is not kept. */
export const updateLink = (token: string, change: (link: CachedLink) => CachedLink): Promise<CachedLink | undefined> => rewrite('links', token, change);

/** The server no longer knows the link (a 404): kept, and said so. */
export const markLinkGone = (token: string, now = Date.now()) => updateLink(token, (l) => ({ ...l, goneAt: l.goneAt ?? now }));

/** The person took the runner off the home screen's list; its notes are not touched. */
export const markLinkRemoved = (token: string, now = Date.now()) => updateLink(token, (l) => ({ ...l, removedAt: l.removedAt ?? now }));

export async function startRecording(draft: RecordingDraft): Promise<void> {
  await write(async () => void (await (await outboxDb()).put('recordings', draft)));
}

/** One chunk (about a second) of a recording; the draft's updatedAt moves with it. */
export async function appendChunk(recordingId: string, seq: number, data: ArrayBuffer, now = Date.now()) {
  const db = await outboxDb();
  await write(async () => {
    const tx = db.transaction(['recordings', 'chunks'], 'readwrite');
    const draft = await tx.objectStore('recordings').get(recordingId);
    if (!draft) throw new RecordingMissingError();
    await tx.objectStore('chunks').put({ recordingId, seq, data });
    await tx.objectStore('recordings').put({ ...draft, updatedAt: now });
    await tx.done;
  });
}

export async function listDrafts(token: string): Promise<RecordingDraft[]> {
  return (await outboxDb()).getAllFromIndex('recordings', 'by-token', token);
}

/** The draft's chunks in order, joined: the first carries the header, so this plays. */
export async function readRecording(recordingId: string): Promise<{ draft: RecordingDraft; data: ArrayBuffer; chunks: number }> {
  const db = await outboxDb();
  const tx = db.transaction(['recordings', 'chunks'], 'readonly');
  const draft = await tx.objectStore('recordings').get(recordingId);
  const range = IDBKeyRange.bound([recordingId, 0], [recordingId, Infinity]);
  const chunks: AudioChunk[] = await tx.objectStore('chunks').getAll(range);
  await tx.done;
  if (!draft) throw new RecordingMissingError();
  return { draft, data: concatChunks(chunks.map((c) => c.data)), chunks: chunks.length };
}

/** Only on the person's explicit 'Record again' or 'Discard'. */
export async function discardRecording(recordingId: string): Promise<void> {
  const db = await outboxDb();
  await write(async () => {
    const tx = db.transaction(['recordings', 'chunks'], 'readwrite');
    await tx.objectStore('chunks').delete(IDBKeyRange.bound([recordingId, 0], [recordingId, Infinity]));
    await tx.objectStore('recordings').delete(recordingId);
    await tx.done;
  });
}

export interface SendDetails {
  marker: string;
  markerLabel: string;
  from: string;
  durationMs: number;
  id?: string;
}

/**
 * Send: the draft becomes a waiting note in one transaction (note, audio, draft removed),
 * so a crash leaves either the draft or the note, never neither.
 */
export async function enqueueRecording(recordingId: string, details: SendDetails, now = Date.now()): Promise<OutboxNote> {
  const { draft, data } = await readRecording(recordingId);
  if (data.byteLength === 0) throw new RecordingMissingError();
  // Hash before the write transaction: awaiting non-IndexedDB work inside one commits it early.
  const sha256 = await sha256Hex(data);
  const note: OutboxNote = {
    id: details.id ?? crypto.randomUUID(),
    token: draft.token,
    marker: details.marker,
    markerLabel: details.markerLabel,
    from: details.from,
    contentType: draft.contentType,
    bytes: data.byteLength,
    sha256,
    durationMs: details.durationMs,
    createdAt: now,
    state: 'waiting',
    attempts: 0,
    nextAttemptAt: now,
  };
  const db = await outboxDb();
  return write(async () => {
    const tx = db.transaction(['notes', 'audio', 'recordings', 'chunks'], 'readwrite');
    await tx.objectStore('notes').put(note);
    await tx.objectStore('audio').put({ id: note.id, data });
    await tx.objectStore('chunks').delete(IDBKeyRange.bound([recordingId, 0], [recordingId, Infinity]));
    await tx.objectStore('recordings').delete(recordingId);
    await tx.done;
    return note;
  }, note.id);
}

export async function listNotes(token: string): Promise<OutboxNote[]> {
  const notes = await (await outboxDb()).getAllFromIndex('notes', 'by-token', token);
  return notes.sort((a, b) => a.createdAt - b.createdAt);
}

export async function allNotes(): Promise<OutboxNote[]> {
  return (await outboxDb()).getAll('notes');
}

export async function getNote(id: string): Promise<OutboxNote | undefined> {
  return (await outboxDb()).get('notes', id);
}

export async function readAudio(id: string): Promise<ArrayBuffer | undefined> {
  return (await (await outboxDb()).get('audio', id))?.data;
}

/** Read-modify-write of one note in one transaction; returns undefined if it is gone. */
export const updateNote = (id: string, change: (note: OutboxNote) => OutboxNote | undefined): Promise<OutboxNote | undefined> =>
  rewrite('notes', id, change, id);

/** 'Retry' on a note that needs attention: due now. */
export function retryNote(id: string, now = Date.now()) {
  return updateNote(id, (n) => (n.state === 'failed' ? { ...n, state: 'waiting', nextAttemptAt: now } : undefined));
}

/** Only on the person's explicit 'Delete'; removes the note and its audio. */
export async function deleteNote(id: string): Promise<void> {
  const db = await outboxDb();
  await write(async () => {
    const tx = db.transaction(['notes', 'audio'], 'readwrite');
    await tx.objectStore('notes').delete(id);
    await tx.objectStore('audio').delete(id);
    await tx.done;
  }, id);
}

/** Frees the audio of notes delivered long enough ago; their small record stays. */
export async function freeDeliveredAudio(now = Date.now(), ttlMs = DELIVERED_AUDIO_TTL_MS): Promise<number> {
  const db = await outboxDb();
  const tx = db.transaction(['notes', 'audio'], 'readwrite');
  let freed = 0;
  for (const note of await tx.objectStore('notes').getAll()) {
    if (note.state !== 'delivered' || note.audioFreed || (note.deliveredAt ?? now) > now - ttlMs) continue;
    await tx.objectStore('audio').delete(note.id);
    await tx.objectStore('notes').put({ ...note, audioFreed: true });
    freed++;
  }
  await tx.done;
  if (freed > 0) announce({ type: 'outbox-changed' });
  return freed;
}
