import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { buffer } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../../server/db/index.js';
import { openBlobStore } from '../../../../server/storage/index.js';
import { createBackend, type BackendKind, type TestBackend } from '../../support/backends.js';
import { append, creation, offsetOf, send } from '../../support/resumable.js';
import { startS3, type TestS3 } from '../../support/s3.js';
import { killHard, startServerProcess, stopGracefully, type ServerProcess } from '../../../../kit/serverProcess.js';
import { fakeWebm, makeLink, sha256Hex } from '../../support/uploads.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3.close());

/** The offset a server reports, polled until it answers 204: after a crash the dead holder's lease must run out first. */
async function heldOffset(base: string, token: string, noteId: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await offsetOf(base, token, noteId);
    if (head.status === 204 && Number(head.headers['upload-offset']) > 0) return Number(head.headers['upload-offset']);
    if (head.status !== 503 && head.status !== 204) throw new Error(`HEAD answered ${head.status}`);
    if (Date.now() > deadline) throw new Error('the upload stayed busy');
    await new Promise((resolve) => setTimeout(resolve, (Number(head.headers['retry-after'] ?? 0.2) * 1000) / 4));
  }
}

const combos: [BackendKind, 'disk' | 'S3'][] = [
  ['sqlite', 'disk'],
  ['postgres', 'S3'],
];

describe.each(combos)('a server killed in the middle of an append, on %s with audio on %s', (db, blobsKind) => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    await backend.cleanup();
  });

  it('should report the offset it stored before the kill, and take the rest after a restart', { timeout: 120_000 }, async () => {
    backend = await createBackend(db, blobsKind === 'S3' ? s3.env : {});
    const repo = await openRepository(backend.config);
    const token = await makeLink(repo);
    const body = fakeWebm(150_000);
    for (let i = 64; i + 4 <= body.length; i += 4) body.writeUInt32BE(i, i); // after the WebM header the sniffer reads
    const noteId = randomUUID();

    proc = await startServerProcess(backend.env);
    await send(proc.base, creation(token, noteId, body, 50_000));
    const before = await heldOffset(proc.base, token, noteId);

    // An append that sends half of the rest and then hangs: the server is in the middle of it at the kill.
    const patch = append(token, noteId, body, before);
    const stalled = http.request(new URL(patch.path, proc.base), {
      method: 'PATCH',
      headers: { ...patch.headers, 'content-length': String(patch.body!.length) },
    });
    stalled.on('error', () => {});
    stalled.write(patch.body!.subarray(0, 40_000));
    await expect.poll(async () => (await repo.uploads.find(noteId))?.leaseOwner ?? null, { timeout: 10_000 }).not.toBeNull();
    await killHard(proc);
    stalled.destroy();

    proc = await startServerProcess(backend.env);
    const after = await heldOffset(proc.base, token, noteId);
    expect(after).toBe(before);
    const done = await send(proc.base, append(token, noteId, body, after));
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body).sha256).toBe(sha256Hex(body));

    const note = await repo.notes.find(noteId);
    expect(await buffer(await openBlobStore(backend.config).get(note!.originalKey))).toEqual(body);
    expect(await repo.uploads.find(noteId)).toBeUndefined();
    await repo.close();
  });
});
