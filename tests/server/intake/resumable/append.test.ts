import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRepository } from '../../../../server/db/index.js';
import type { Repository } from '../../../../server/db/repository.js';
import { ApiProblem, UploadProblem } from '../../../../server/http/problem.js';
import { linkIdOf } from '../../../../server/links.js';
import { openBlobStore } from '../../../../server/storage/index.js';
import { uploadPartKey } from '../../../../server/storage/keys.js';
import { appendPart, createLocalHolders, LEASE_MS, takeLease, type AppendDeps, type Lease } from '../../../../server/intake/resumable/append.js';
import { cutTolerant } from '../../../../server/intake/resumable/body.js';
import { BACKENDS, createBackend, type TestBackend } from '../../support/backends.js';
import { fakeWebm, makeLink, sha256Hex } from '../../support/uploads.js';

/** A request body we feed by hand, seen by the append as the server sees one: through cutTolerant. */
function requestBody(idleMs = 60_000) {
  const source = new PassThrough();
  const body = cutTolerant(source, idleMs);
  /** Resolves once what was written has left `source` for the body: a cut then keeps all of it. */
  const handedOver = () => vi.waitFor(() => expect(source.readableLength + source.writableLength).toBe(0));
  return { source, body, handedOver };
}

describe.each(BACKENDS)('the append lease and the part store on local disk and %s', (kind) => {
  let backend: TestBackend;
  let repo: Repository;
  let deps: AppendDeps;
  let token: string;

  beforeAll(async () => {
    backend = await createBackend(kind);
    repo = await openRepository(backend.config);
    deps = { uploads: repo.uploads, blobs: openBlobStore(backend.config), log: Fastify({ logger: { level: 'silent' } }).log };
    token = await makeLink(repo);
  });
  afterAll(async () => {
    await repo.close();
    await backend.cleanup();
  });

  /** An unfinished upload of a note of `note.length` bytes, nothing stored yet. */
  async function newUpload(note: Buffer): Promise<string> {
    const noteId = randomUUID();
    await repo.uploads.create({
      noteId,
      linkId: linkIdOf(token),
      marker: 'mi-13',
      from: 'Sam',
      contentType: 'audio/webm',
      sha256: sha256Hex(note),
      length: note.length,
      createdAt: new Date().toISOString(),
      expiresAt: Date.now() + 3_600_000,
    });
    return noteId;
  }

  const storedBytes = async (noteId: string) =>
    Buffer.concat(await Promise.all((await repo.uploads.parts(noteId)).map(async (p) => buffer(await deps.blobs.get(p.blobKey)))));

  /** Appends `bytes` whole at `bodyOffset` under a fresh lease, as one request does. */
  async function appendWhole(noteId: string, bytes: Buffer, bodyOffset: number, mayOverlap = false) {
    const lease = await takeLease(deps, createLocalHolders(), noteId);
    const { source, body } = requestBody();
    source.end(bytes);
    try {
      return await appendPart(deps, lease, { body, bodyOffset, mayOverlap });
    } finally {
      await lease.release();
    }
  }

  it('should store a body as a part, durable before the offset moves past it', async () => {
    const note = fakeWebm(4000);
    const noteId = await newUpload(note);
    expect(await appendWhole(noteId, note.subarray(0, 1500), 0)).toEqual({ offset: 1500, cut: false });
    expect(await appendWhole(noteId, note.subarray(1500), 1500)).toEqual({ offset: 4000, cut: false });
    expect((await repo.uploads.parts(noteId)).map((p) => [p.offset, p.bytes])).toEqual([
      [0, 1500],
      [1500, 2500],
    ]);
    expect(await storedBytes(noteId)).toEqual(note);
    expect((await repo.uploads.find(noteId))?.leaseOwner).toBeNull();
  });

  it('should refuse a mismatching offset with the one it holds, and store nothing', async () => {
    const note = fakeWebm(3000);
    const noteId = await newUpload(note);
    await appendWhole(noteId, note.subarray(0, 1000), 0);
    for (const wrong of [0, 999, 1001]) {
      const refused = await appendWhole(noteId, note.subarray(wrong), wrong).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(UploadProblem);
      expect(refused).toMatchObject({ statusCode: 409, code: 'mismatching-upload-offset', members: { 'expected-offset': 1000, 'provided-offset': wrong } });
    }
    expect((await repo.uploads.find(noteId))?.offset).toBe(1000);
    expect(await repo.uploads.parts(noteId)).toHaveLength(1);
  });

  it('should skip what it holds when a creation sends the note again from the start', async () => {
    const note = fakeWebm(3000);
    const noteId = await newUpload(note);
    await appendWhole(noteId, note.subarray(0, 1200), 0);
    expect(await appendWhole(noteId, note, 0, true)).toEqual({ offset: 3000, cut: false });
    expect(await storedBytes(noteId)).toEqual(note);
  });

  it('should keep what arrived before the connection was cut, and move the offset to it', async () => {
    const note = fakeWebm(5000);
    const noteId = await newUpload(note);
    const lease = await takeLease(deps, createLocalHolders(), noteId);
    const { source, body, handedOver } = requestBody();
    const appending = appendPart(deps, lease, { body, bodyOffset: 0, mayOverlap: false }).finally(() => lease.release());
    source.write(note.subarray(0, 3000));
    await handedOver();
    source.destroy();
    expect(await appending).toEqual({ offset: 3000, cut: true });
    expect((await repo.uploads.find(noteId))?.offset).toBe(3000);
    expect(await storedBytes(noteId)).toEqual(note.subarray(0, 3000));
  });

  it('should count a silent connection as a cut and keep what came before the silence', async () => {
    const note = fakeWebm(5000);
    const noteId = await newUpload(note);
    const lease = await takeLease(deps, createLocalHolders(), noteId);
    const { source, body } = requestBody(300);
    source.write(note.subarray(0, 2000));
    expect(await appendPart(deps, lease, { body, bodyOffset: 0, mayOverlap: false }).finally(() => lease.release())).toEqual({ offset: 2000, cut: true });
  });

  it('should end a running append when a newer request for the upload takes the lease, keeping what the old one got', async () => {
    const note = fakeWebm(6000);
    const noteId = await newUpload(note);
    const holders = createLocalHolders();
    const first = await takeLease(deps, holders, noteId);
    const { source, body, handedOver } = requestBody();
    const appending = appendPart(deps, first, { body, bodyOffset: 0, mayOverlap: false }).finally(() => first.release());
    source.write(note.subarray(0, 2500));
    await handedOver();

    const second = await takeLease(deps, holders, noteId);
    try {
      expect(await appending).toEqual({ offset: 2500, cut: true });
      expect(second.upload.offset).toBe(2500);
      expect(second.upload.leaseOwner).toBe(second.owner);
      expect(source.destroyed).toBe(true);
    } finally {
      await second.release();
    }
  });

  it('should hold another server off while its holder lives, and answer 503 upload_busy when the wait runs out', async () => {
    const note = fakeWebm(2000);
    const noteId = await newUpload(note);
    // Another server's live lease: not in this process's holders, so only the row says it is taken.
    expect(await repo.uploads.lease(noteId, 'other-server', Date.now(), LEASE_MS)).toBe(true);
    const refused = await takeLease(deps, createLocalHolders(), noteId).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ statusCode: 503, code: 'upload_busy', headers: { 'retry-after': expect.stringMatching(/^\d+$/) } });
    expect((await repo.uploads.find(noteId))?.leaseOwner).toBe('other-server');
  });

  it('should take over the lease of a crashed holder once it ran out, and remove the part it left unrecorded', async () => {
    const note = fakeWebm(3000);
    const noteId = await newUpload(note);
    await appendWhole(noteId, note.subarray(0, 1000), 0);
    // A server that took the lease, wrote part of its append, and died: the lease ran out, the part blob has no row.
    const crashedAt = Date.now() - LEASE_MS - 1_000;
    expect(await repo.uploads.lease(noteId, 'crashed-server', crashedAt, LEASE_MS)).toBe(true);
    const leftOver = uploadPartKey(noteId, 1000, 'crashed-server');
    await deps.blobs.put(leftOver, new PassThrough().end(note.subarray(1000, 1800)), { maxBytes: 10_000 });

    let lease: Lease | undefined;
    try {
      lease = await takeLease(deps, createLocalHolders(), noteId);
      expect(lease.upload).toMatchObject({ offset: 1000, leaseOwner: lease.owner });
      expect(await deps.blobs.exists(leftOver)).toBe(false);
    } finally {
      await lease?.release();
    }
    expect(await appendWhole(noteId, note.subarray(1000), 1000)).toEqual({ offset: 3000, cut: false });
    expect(await storedBytes(noteId)).toEqual(note);
  });

  it('should refuse a body past the note’s length as too large, and keep nothing of it', async () => {
    const note = fakeWebm(2000);
    const noteId = await newUpload(note);
    const refused = await appendWhole(noteId, Buffer.concat([note, Buffer.alloc(10, 1)]), 0).catch((err: unknown) => err);
    expect(refused).toMatchObject({ statusCode: 413, code: 'too_large' });
    expect(await repo.uploads.parts(noteId)).toEqual([]);
    expect((await repo.uploads.find(noteId))?.offset).toBe(0);
  });
});
