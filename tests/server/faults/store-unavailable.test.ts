/**
 * A note sent while the S3 store cannot be reached (nothing listens at its endpoint): 503
 * storage_unavailable with Retry-After, after the store's own retries, and nothing stored. It once
 * answered 500.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/app.js';
import { freePort } from '../../../kit/freePort.js';
import { fakeWebm, makeLink, putNote } from '../support/uploads.js';

describe('the S3 store unreachable', () => {
  it('should answer a note 503 storage_unavailable with Retry-After, and keep no note', async () => {
    const port = await freePort();
    const t = await startTestApp('sqlite', {
      S3_BUCKET: 'notes',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: 'x',
      S3_SECRET_ACCESS_KEY: 'x',
      S3_FORCE_PATH_STYLE: 'true',
    });
    try {
      const token = await makeLink(t.app.repo);
      const noteId = randomUUID();
      const res = await putNote(t.app, { token, noteId, body: fakeWebm() });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('10');
      expect(res.json()).toMatchObject({ error: 'storage_unavailable' });
      expect(await t.app.repo.notes.find(noteId)).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
