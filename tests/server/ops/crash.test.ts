import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { buffer } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { NoteReceipt } from '../../../contract/api.js';
import { openRepository } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { killHard, startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { digestOf, fakeWebm, makeLink } from '../support/uploads.js';

interface Planned {
  noteId: string;
  body: Buffer;
}

/** Sends a note; with `stall`, sends only half the body and never finishes, so it is mid-upload at the kill. */
function upload(base: string, token: string, note: Planned, stall = false): Promise<{ status: number; receipt?: NoteReceipt }> {
  return new Promise((resolve) => {
    const req = http.request(
      new URL(`/api/r/${token}/notes/${note.noteId}?marker=mi-20&from=Kim`, base),
      {
        method: 'PUT',
        headers: { 'content-type': 'audio/webm', 'content-digest': digestOf(note.body), 'content-length': String(note.body.length) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, receipt: res.statusCode === 201 ? JSON.parse(body) : undefined }));
        res.on('error', () => resolve({ status: 0 }));
      },
    );
    req.on('error', () => resolve({ status: 0 }));
    if (stall) req.write(note.body.subarray(0, note.body.length / 2));
    else req.end(note.body);
  });
}

describe.each(BACKENDS)('a server killed during uploads on %s', (kind) => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    await backend.cleanup();
  });

  it('should lose no note answered 201, show no partial note, and land each retried note once', async () => {
    backend = await createBackend(kind);
    const setupRepo = await openRepository(backend.config);
    const token = await makeLink(setupRepo);
    await setupRepo.close();

    const notes: Planned[] = Array.from({ length: 30 }, (_, i) => {
      const body = fakeWebm(150_000 + i);
      body.writeUInt32BE(i, 100);
      return { noteId: randomUUID(), body };
    });
    // Thirty phones' uploads from one test address: the per-address limits would refuse most of
    // them, and this test is about crashes, so they are lifted here (slow-clients and notes/quota test them).
    const env = { ...backend.env, OPEN_UPLOADS_PER_ADDRESS: '100', UPLOADS_PER_ADDRESS: '1000' };
    proc = await startServerProcess(env);
    const stalled = notes.slice(0, 5).map((n) => upload(proc!.base, token, n, true));
    const answered = new Map<string, NoteReceipt>();
    const rest = notes.slice(5).map(async (n) => {
      const res = await upload(proc!.base, token, n);
      if (res.receipt) answered.set(n.noteId, res.receipt);
    });
    // Kill once some notes are confirmed, while others are still on the wire.
    await expect.poll(() => answered.size, { timeout: 15_000, interval: 5 }).toBeGreaterThanOrEqual(5);
    await killHard(proc);
    await Promise.all([...stalled, ...rest]);
    expect(answered.size).toBeLessThan(notes.length);

    proc = await startServerProcess(env);
    const repo = await openRepository(backend.config);
    const blobs = openBlobStore(backend.config);
    try {
      const stored = await repo.notes.ofLink(linkIdOf(token));
      for (const [noteId, receipt] of answered) {
        expect(stored.find((n) => n.id === noteId)).toMatchObject({ sha256: receipt.sha256, bytes: receipt.bytes });
      }
      for (const note of stored) {
        const content = await buffer(await blobs.get(note.originalKey));
        expect(createHash('sha256').update(content).digest('hex')).toBe(note.sha256);
      }

      const retried = await Promise.all(notes.map((n) => upload(proc!.base, token, n)));
      expect(retried.map((r) => r.status)).toEqual(notes.map(() => 201));
      for (const [noteId, receipt] of answered) {
        expect(retried[notes.findIndex((n) => n.noteId === noteId)]!.receipt).toEqual(receipt);
      }
      const after = await repo.notes.ofLink(linkIdOf(token));
      expect(after.map((n) => n.id).sort()).toEqual(notes.map((n) => n.noteId).sort());
    } finally {
      await repo.close();
    }
  });
});
