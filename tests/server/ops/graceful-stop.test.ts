import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { NoteReceipt } from '../../../contract/api.js';
import { IDLE_TIMEOUT_DEFAULT_MS, loadConfig } from '../../../server/config/index.js';
import { openRepository } from '../../../server/db/index.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { uploadStream } from '../support/remote-uploads.js';
import { append, offsetOf, partialCreation, send, trickle } from '../support/resumable.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { digestOf, fakeWebm, makeLink, sha256Hex } from '../support/uploads.js';

/** An upload that sends half its body now and the rest when told to. */
function halfSent(base: string, token: string, body: Buffer) {
  const noteId = randomUUID();
  let finish!: () => void;
  const answer = new Promise<{ status: number; receipt?: NoteReceipt }>((resolve) => {
    const req = http.request(
      new URL(`/api/r/${token}/notes/${noteId}?marker=mi-13&from=Kim`, base),
      {
        method: 'PUT',
        headers: { 'content-type': 'audio/webm', 'content-digest': digestOf(body), 'content-length': String(body.length) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, receipt: res.statusCode === 201 ? JSON.parse(text) : undefined }));
        res.on('error', () => resolve({ status: 0 }));
      },
    );
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

  it('should not wait on connections that never sent a whole request: one silent, one with half its headers', async () => {
    backend = await createBackend('sqlite');
    expect(loadConfig(backend.env).idleTimeoutMs).toBe(IDLE_TIMEOUT_DEFAULT_MS); // what held the stop up, 60 s
    proc = await startServerProcess(backend.env, 60_000);
    const server = proc;
    const { port } = new URL(server.base);
    const opened = async () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      return socket;
    };
    const silent = await opened();
    const half = await opened();
    half.write('GET /api/races HTTP/1.1\r\nHost: milenotes\r\n');
    try {
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      const stoppedAt = Date.now();
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Before: the process exited only when the idle limit closed both sockets, 60 s later.
      expect(Date.now() - stoppedAt).toBeLessThan(IDLE_TIMEOUT_DEFAULT_MS / 3);
    } finally {
      silent.destroy();
      half.destroy();
    }
  }, 120_000);

  it('should treat appends as uploads: refuse new ones 503, wait for those in flight, and cut one still trickling at the limit with what it sent kept', async () => {
    const graceMs = 5_000;
    backend = await createBackend('sqlite', { SHUTDOWN_GRACE_MS: String(graceMs) });
    const repo = await openRepository(backend.config);
    try {
      const token = await makeLink(repo);
      proc = await startServerProcess(backend.env, 60_000);
      const server = proc;
      const note = () => {
        const body = fakeWebm(20_000);
        for (let i = 64; i + 4 <= body.length; i += 4) body.writeUInt32BE(i, i); // every note its own bytes
        return { id: randomUUID(), body };
      };
      const [finishing, trickling, probe] = [note(), note(), note()];
      for (const n of [finishing, trickling, probe]) expect((await send(server.base, partialCreation(token, n.id, n.body, 1_000))).status).toBe(201);

      const finishingAppend = trickle(server.base, append(token, finishing.id, finishing.body, 1_000), 4_000);
      const tricklingAppend = trickle(server.base, append(token, trickling.id, trickling.body, 1_000), 500, 250);
      const appending = async (id: string) => (await repo.uploads.find(id))?.leaseOwner ?? null;
      await expect.poll(() => appending(finishing.id), { timeout: 10_000 }).not.toBeNull();
      await expect.poll(() => appending(trickling.id), { timeout: 10_000 }).not.toBeNull();

      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      const sentBeforeStop = tricklingAppend.sent();
      const stoppedAt = Date.now();
      server.child.kill('SIGTERM');
      // An empty append changes nothing; once the server is stopping it is refused like a new PUT.
      const probeAppend = () => send(server.base, append(token, probe.id, probe.body, 1_000, { to: 1_000 }));
      let refused = await probeAppend();
      while (refused.status === 204) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // not before the server has taken the signal
        refused = await probeAppend();
      }
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'shutting_down' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

      // The append in flight is waited for: its note completes.
      finishingAppend.finish();
      const finished = await finishingAppend.answer;
      expect(finished.status).toBe(201);
      expect(JSON.parse(finished.body)).toMatchObject({ id: finishing.id, sha256: sha256Hex(finishing.body) });

      // The one still trickling at the limit is cut there, and the server stops.
      expect(await exited).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(graceMs + 10_000);
      expect((await tricklingAppend.answer).status).toBe(0);
      const sentAtCut = tricklingAppend.sent();

      proc = await startServerProcess(backend.env, 60_000);
      const head = await offsetOf(proc.base, token, trickling.id);
      expect(head.status).toBe(204);
      const held = Number(head.headers['upload-offset']);
      expect(held).toBeGreaterThanOrEqual(1_000 + sentBeforeStop);
      expect(held).toBeLessThanOrEqual(1_000 + sentAtCut);
      const done = await send(proc.base, append(token, trickling.id, trickling.body, held));
      expect(done.status).toBe(201);
      expect(JSON.parse(done.body)).toMatchObject({ sha256: sha256Hex(trickling.body) });
      expect((await repo.notes.find(finishing.id))?.sha256).toBe(sha256Hex(finishing.body));
    } finally {
      await repo.close();
    }
  }, 120_000);
});
