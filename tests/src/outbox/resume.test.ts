import { beforeEach, describe, expect, it } from 'vitest';
import { closeOutboxDb, getNote, readAudio, replayOutbox, sendNote } from '../../../src/outbox/index.js';
import type { UploadRequest, UploadResponse } from '../../../src/outbox/index.js';
import { uploadPath } from '../../../contract/paths.js';
import { INTEROP_VERSION, PARTIAL_UPLOAD_TYPE, UPLOAD_HEADER } from '../../../contract/uploadProtocol.js';
import { freshDb, queuedNote } from './helpers.js';

beforeEach(freshDb);

const base = { locks: null, random: () => 0.5 };

interface FakeServerOptions {
  /** Body bytes each successive connection carries before it drops; undefined: it holds. */
  cuts?: (number | undefined)[];
  /** false: a server without resumable uploads (HEAD 404, PUT whole or nothing). */
  resumable?: boolean;
  /** Every request fails, as when the phone is offline. */
  offline?: () => boolean;
}

/** A request header by name, whatever its case, as a server reads it. */
const headerOf = (request: UploadRequest, name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/** A resumable-upload server in memory, reached through a link that cuts connections on a schedule. */
function fakeServer(options: FakeServerOptions = {}) {
  const cuts = [...(options.cuts ?? [])];
  const log: { method: string; offset?: number; sent: number }[] = [];
  let held: Uint8Array | undefined;
  let complete = false;
  const reply = (status: number, headers: Record<string, string> = {}): UploadResponse => ({
    status,
    body: '{}',
    retryAfter: null,
    header: (name) => headers[name.toLowerCase()] ?? null,
  });
  const transport = async (request: UploadRequest, onProgress?: (f: number) => void): Promise<UploadResponse> => {
    if (options.offline?.()) throw new TypeError('Failed to fetch');
    const method = request.method ?? 'PUT';
    const body = new Uint8Array(request.body ?? new ArrayBuffer(0));
    const budget = method === 'HEAD' ? undefined : cuts.shift();
    const arrived = budget === undefined ? body : body.subarray(0, budget);
    log.push({ method, offset: method === 'PATCH' ? Number(headerOf(request, 'Upload-Offset')) : undefined, sent: arrived.length });
    if (arrived.length) onProgress?.(arrived.length / body.length);
    if (method === 'HEAD') {
      if (!held || options.resumable === false) return reply(404);
      return reply(204, { 'upload-offset': String(held.length), 'upload-complete': complete ? '?1' : '?0' });
    }
    if (method === 'PUT') {
      if (complete) return reply(201);
      if (options.resumable !== false && arrived.length > (held?.length ?? 0)) held = arrived.slice();
      if (budget !== undefined) throw new TypeError('Failed to fetch');
      held = body.slice();
      complete = true;
      return reply(201, { 'upload-complete': '?1' });
    }
    const offset = Number(headerOf(request, 'Upload-Offset'));
    if (!held || complete) return reply(400);
    if (offset !== held.length) return reply(409, { 'upload-offset': String(held.length) });
    const joined = new Uint8Array(held.length + arrived.length);
    joined.set(held);
    joined.set(arrived, held.length);
    held = joined;
    if (budget !== undefined) throw new TypeError('Failed to fetch');
    complete = true;
    return reply(201, { 'upload-complete': '?1' });
  };
  return { transport, log, held: () => held, isComplete: () => complete, moveTo: (bytes: Uint8Array) => void (held = bytes) };
}

const audioOf = (size: number) => {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 7) % 251;
  return data.buffer;
};

describe('resuming note uploads', () => {
  it('sends the whole note in one request that offers resumption when the link holds', async () => {
    const note = await queuedNote([audioOf(3_000)]);
    const server = fakeServer();
    const report = await replayOutbox(server.transport, base);
    expect(report.delivered).toEqual([note.id]);
    expect(server.log).toEqual([{ method: 'PUT', offset: undefined, sent: 3_000 }]);
    expect(await getNote(note.id)).toMatchObject({ state: 'delivered', uploadStarted: false, uploadOffset: 3_000 });
  });

  it('asks for the offset after each cut and sends only the rest, within one attempt while each cut gets further', async () => {
    const note = await queuedNote([audioOf(3_500)]);
    const server = fakeServer({ cuts: [1_000, 1_000, 1_000] });
    const report = await replayOutbox(server.transport, base);
    expect(report.delivered).toEqual([note.id]);
    expect(server.log.map((r) => `${r.method}${r.offset ?? ''}`)).toEqual(['PUT', 'HEAD', 'PATCH1000', 'HEAD', 'PATCH2000', 'HEAD', 'PATCH3000']);
    expect(server.log.reduce((sum, r) => sum + r.sent, 0)).toBe(3_500);
    expect(server.held()).toEqual(new Uint8Array((await readAudio(note.id))!));
    expect((await getNote(note.id))!.attempts).toBe(1);
  });

  it('keeps the offset in the outbox, so after a reload another uploader resumes where the server stopped', async () => {
    const note = await queuedNote([audioOf(4_000)]);
    let offline = false;
    const server = fakeServer({ cuts: [1_500, 1_000], offline: () => offline });
    // The page: the first connection drops after 1,500 bytes, the second after 1,000 more; then the signal goes.
    const first = replayOutbox(async (request, onProgress) => {
      try {
        return await server.transport(request, onProgress);
      } finally {
        if (request.method === 'PATCH') offline = true;
      }
    }, base);
    expect((await first).waiting).toBe(1);
    expect(await getNote(note.id)).toMatchObject({ state: 'waiting', uploadStarted: true, uploadOffset: 1_500 });

    await closeOutboxDb();
    offline = false;
    const before = server.log.length;
    // The service worker (another transport, the same outbox) finishes it without resending the start.
    const report = await replayOutbox(server.transport, { ...base, force: true });
    expect(report.delivered).toEqual([note.id]);
    expect(server.log.slice(before).map((r) => `${r.method}${r.offset ?? ''}`)).toEqual(['HEAD', 'PATCH2500']);
    expect(server.held()).toEqual(new Uint8Array(audioOf(4_000)));
  });

  it('speaks the wire format of the shared upload protocol: its interop version, headers and upload path', async () => {
    const note = await queuedNote([audioOf(2_000)]);
    const server = fakeServer({ cuts: [1_000] });
    const requests: UploadRequest[] = [];
    await replayOutbox(async (request, onProgress) => {
      requests.push(request);
      return server.transport(request, onProgress);
    }, base);
    expect(requests.map((r) => r.method ?? 'PUT')).toEqual(['PUT', 'HEAD', 'PATCH']);
    for (const request of requests) expect(headerOf(request, UPLOAD_HEADER.interopVersion)).toBe(INTEROP_VERSION);
    expect(headerOf(requests[0]!, UPLOAD_HEADER.length)).toBe('2000');
    expect(requests.slice(1).map((r) => r.url)).toEqual([uploadPath(note.token, note.id), uploadPath(note.token, note.id)]);
    expect(headerOf(requests[2]!, 'Content-Type')).toBe(PARTIAL_UPLOAD_TYPE);
    expect(headerOf(requests[2]!, UPLOAD_HEADER.offset)).toBe('1000');
  });

  it('reports as progress what the server holds, not what was sent before a cut', async () => {
    const note = await queuedNote([audioOf(2_000)]);
    const server = fakeServer({ cuts: [1_500, 1_000] });
    const seen: number[] = [];
    const saved: (number | undefined)[] = [];
    // The server keeps only 1,000 of the first 1,500 bytes (some were still in its buffers at the cut).
    const keepLess = async (request: UploadRequest, onProgress?: (f: number) => void) => {
      try {
        return await server.transport(request, onProgress);
      } finally {
        if (!request.method) server.moveTo(server.held()!.slice(0, 1_000));
      }
    };
    await sendNote(note, (await readAudio(note.id))!, keepLess, {
      save: async (p) => void saved.push(p.uploadOffset),
      progress: (f) => seen.push(f),
    });
    expect(seen).toContain(0.75);
    expect(seen[seen.indexOf(0.75) + 1]).toBe(0.5);
    expect(saved).toContain(1_000);
  });

  it('waits with backoff, instead of looping, when a cut got nothing more across', async () => {
    const note = await queuedNote([audioOf(3_000)]);
    const server = fakeServer({ cuts: [1_000, 0, 0, 0] });
    const report = await replayOutbox(server.transport, base);
    expect(report.waiting).toBe(1);
    expect(server.log.map((r) => r.method)).toEqual(['PUT', 'HEAD', 'PATCH', 'HEAD']);
    expect(await getNote(note.id)).toMatchObject({ state: 'waiting', lastStatus: 0, uploadOffset: 1_000 });
  });

  it('asks again and goes on when another uploader moved the offset meanwhile (409)', async () => {
    const note = await queuedNote([audioOf(3_000)]);
    const audio = new Uint8Array((await readAudio(note.id))!);
    const server = fakeServer({ cuts: [1_000] });
    let patches = 0;
    const racing = async (request: UploadRequest, onProgress?: (f: number) => void) => {
      // Between our HEAD and our PATCH, another tab appended 500 bytes.
      if (request.method === 'PATCH' && patches++ === 0) server.moveTo(audio.slice(0, 1_500));
      return server.transport(request, onProgress);
    };
    const report = await replayOutbox(racing, base);
    expect(report.delivered).toEqual([note.id]);
    expect(server.log.map((r) => `${r.method}${r.offset ?? ''}`)).toEqual(['PUT', 'HEAD', 'PATCH1000', 'HEAD', 'PATCH1500']);
    expect(server.held()).toEqual(audio);
  });

  it('sends the whole note again where the server does not resume', async () => {
    const note = await queuedNote([audioOf(3_000)]);
    const server = fakeServer({ resumable: false, cuts: [1_000] });
    const t = { now: 10_000 };
    await replayOutbox(server.transport, { ...base, now: () => t.now });
    expect(await getNote(note.id)).toMatchObject({ state: 'waiting', uploadStarted: true });
    t.now += 60_000;
    const report = await replayOutbox(server.transport, { ...base, now: () => t.now });
    expect(report.delivered).toEqual([note.id]);
    expect(server.log.map((r) => `${r.method}:${r.sent}`)).toEqual(['PUT:1000', 'HEAD:0', 'HEAD:0', 'PUT:3000']);
  });

  it('counts a note the server already completed as delivered without sending it again', async () => {
    const note = await queuedNote([audioOf(2_000)]);
    const server = fakeServer();
    await replayOutbox(server.transport, base);
    // As if the answer was lost: the outbox still thinks an upload is under way.
    const { updateNote } = await import('../../../src/outbox/index.js');
    await updateNote(note.id, (n) => ({ ...n, state: 'waiting', uploadStarted: true, nextAttemptAt: 0 }));
    const before = server.log.length;
    const report = await replayOutbox(server.transport, base);
    expect(report.delivered).toEqual([note.id]);
    expect(server.log.slice(before).map((r) => r.method)).toEqual(['HEAD']);
  });
});
