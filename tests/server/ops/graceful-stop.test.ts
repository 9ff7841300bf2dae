import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { NoteReceipt } from '../../../src/shared/api.js';
import { openRepository } from '../../../server/db/index.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { uploadStream } from '../support/remote-uploads.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../support/server-process.js';
import { digestOf, fakeWebm, makeLink } from '../support/uploads.js';

/** An upload that sends half its body now and the rest when told to. */
function halfSent(base: string, token: string, body: Buffer) {
  const noteId = randomUUID();
  let finish!: () => void;
  const answer = new Promise<{ status: number; receipt?: NoteReceipt }>((resolve) => {
    const req = http.request(new URL(`/api/r/${token}/notes/${noteId}?marker=mi-13&from=Kim`, base), {
      method: 'PUT',
      headers: { 'content-type': 'audio/webm', 'content-digest': digestOf(body), 'content-length': String(body.length) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, receipt: res.statusCode === 201 ? JSON.parse(text) : undefined }));
      res.on('error', () => resolve({ status: 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.write(body.subarray(0, body.length / 2));
    finish = () => req.end(body.subarray(body.length / 2));
  });
  return { noteId, answer, finish: () => finish() };
}

describe('a server stopped with SIGTERM during uploads', () => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    await backend.cleanup();
  });

  it('should refuse new uploads with 503 + Retry-After, finish those in flight, cut the rest at the limit, and lose no 2xx note', async () => {
    backend = await createBackend('sqlite', { SHUTDOWN_GRACE_MS: '4000' });
    const setup = await openRepository(backend.config);
    const token = await makeLink(setup);
    await setup.close();
    proc = await startServerProcess(backend.env, 60_000);
    const server = proc;

    const body = fakeWebm(60_000);
    const finishing = halfSent(server.base, token, body);
    const stalled = halfSent(server.base, token, fakeWebm(60_001));
    const uploads = uploadStream(() => server.base, token, body, 3);
    await expect.poll(() => uploads.acknowledged.size, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(5);

    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    await expect.poll(() => uploads.answers.some((a) => a.status === 503), { timeout: 15_000, interval: 10 }).toBe(true);
    finishing.finish();
    expect((await finishing.answer).status).toBe(201);
    expect(await exited).toBe(0);
    expect((await stalled.answer).status).not.toBe(201);
    await uploads.stop();

    const refused = uploads.answers.filter((a) => a.status === 503);
    expect(refused.every((a) => Number(a.retryAfter) > 0)).toBe(true);
    expect(uploads.answers.every((a) => [0, 201, 503].includes(a.status))).toBe(true);

    proc = await startServerProcess(backend.env, 60_000);
    const repo = await openRepository(backend.config);
    try {
      const acknowledged = [...uploads.acknowledged.keys(), finishing.noteId];
      for (const noteId of acknowledged) expect(await repo.notes.find(noteId), `note ${noteId} was answered 201`).toBeDefined();
      expect(await repo.notes.find(stalled.noteId)).toBeUndefined();
    } finally {
      await repo.close();
    }
  }, 180_000);
});
