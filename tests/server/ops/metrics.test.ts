import { readFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { append, partialCreation, send } from '../support/resumable.js';
import { digestOf, fakeWebm, makeLink, putNote } from '../support/uploads.js';

/** The value of one sample line, e.g. `milenotes_notes_refused_total{reason="not_audio"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('who may read /metrics', () => {
  it('should answer 404 unless enabled', async () => {
    const t = await startTestApp('sqlite');
    try {
      expect((await t.app.inject('/metrics')).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('should answer everyone when METRICS=on', async () => {
    const t = await startTestApp('sqlite', { METRICS: 'on' });
    try {
      const res = await t.app.inject({ url: '/metrics', remoteAddress: '203.0.113.9' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.body).toContain('process_cpu_user_seconds_total');
    } finally {
      await t.close();
    }
  });

  it('should answer only the addresses METRICS_ALLOW names, by socket address, not X-Forwarded-For', async () => {
    const t = await startTestApp('sqlite', { METRICS_ALLOW: '10.0.0.5, 127.0.0.1' });
    try {
      expect((await t.app.inject({ url: '/metrics', remoteAddress: '10.0.0.5' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/metrics', remoteAddress: '::ffff:127.0.0.1' })).statusCode).toBe(200);
      const spoofed = await t.app.inject({ url: '/metrics', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '10.0.0.5' } });
      expect(spoofed.statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('what /metrics counts', () => {
  let dir: string;
  let t: TestApp;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-metrics-'));
    await makeSpeech(dir);
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should count notes received, retried and refused by reason, their bytes, the queue, conversions, and latency by route pattern', async () => {
    t = await startTestApp('sqlite', { METRICS: 'on', CONVERT_WORKER: 'on' });
    const token = await makeLink(t.app.repo);
    const speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
    const noteId = randomUUID();
    expect((await putNote(t.app, { token, body: speech, noteId })).statusCode).toBe(201);
    expect((await putNote(t.app, { token, body: speech, noteId })).statusCode).toBe(201);
    expect((await putNote(t.app, { token, body: Buffer.from('hello, not audio') })).statusCode).toBe(415);
    expect((await putNote(t.app, { token, body: speech, digest: digestOf(Buffer.from('other')) })).statusCode).toBe(400);
    // Passes the sniffer, fails in ffmpeg.
    expect((await putNote(t.app, { token, body: fakeWebm(4096) })).statusCode).toBe(201);
    expect((await t.app.inject(`/api/r/${token}`)).statusCode).toBe(200);

    const text = await vi.waitFor(
      async () => {
        const body = (await t.app.inject('/metrics')).body;
        if (sample(body, 'milenotes_conversion_queue_depth') !== 0) throw new Error('conversions still queued');
        return body;
      },
      { timeout: 30_000, interval: 200 },
    );

    expect(sample(text, 'milenotes_notes_received_total{kind="new"}')).toBe(2);
    expect(sample(text, 'milenotes_notes_received_total{kind="retry"}')).toBe(1);
    expect(sample(text, 'milenotes_notes_refused_total{reason="not_audio"}')).toBe(1);
    expect(sample(text, 'milenotes_notes_refused_total{reason="digest_mismatch"}')).toBe(1);
    expect(sample(text, 'milenotes_note_bytes_received_total')).toBe(speech.length + 4096);
    expect(sample(text, 'milenotes_conversion_duration_seconds_count')).toBe(1);
    expect(sample(text, 'milenotes_conversion_failures_total{kind="unplayable"}')).toBe(1);
    expect(sample(text, 'milenotes_http_request_duration_seconds_count{method="PUT",route="/api/r/:token/notes/:noteId",status_code="201"}')).toBe(3);
    expect(sample(text, 'milenotes_http_request_duration_seconds_count{method="GET",route="/api/r/:token",status_code="200"}')).toBe(1);
    // Route patterns, never raw URLs: no token or note id becomes a label.
    expect(text).not.toContain(token);
    expect(text).not.toContain(noteId);
  });

  it('should time and count an append that completes a note as a note upload, and one refused by its reason', async () => {
    const resumable = await startTestApp('sqlite', { METRICS: 'on' });
    try {
      const base = await resumable.app.listen({ port: 0, host: '127.0.0.1' });
      const token = await makeLink(resumable.app.repo);
      const note = fakeWebm(30_000);
      const noteId = randomUUID();
      expect((await send(base, partialCreation(token, noteId, note, 10_000))).status).toBe(201);
      expect((await send(base, append(token, noteId, note, 9_000))).status).toBe(409);
      expect((await send(base, append(token, noteId, note, 10_000))).status).toBe(201);

      const text = (await resumable.app.inject('/metrics')).body;
      const route = '/api/r/:token/uploads/:noteId';
      expect(sample(text, `milenotes_http_request_duration_seconds_count{method="PATCH",route="${route}",status_code="201"}`)).toBe(1);
      expect(sample(text, 'milenotes_notes_received_total{kind="new"}')).toBe(1);
      expect(sample(text, 'milenotes_note_bytes_received_total')).toBe(note.length);
      expect(sample(text, 'milenotes_notes_refused_total{reason="mismatching-upload-offset"}')).toBe(1);
    } finally {
      await resumable.close();
    }
  });
});
