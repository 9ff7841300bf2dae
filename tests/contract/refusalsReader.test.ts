import { describe, expect, it } from 'vitest';
import { readRefusal } from '../../contract/refusalsReader.js';

describe('the reader of error answers', () => {
  it('should read the code and sentence of our answer, as text or as parsed JSON', () => {
    const body = { error: 'link_full', message: 'This link has reached its limit of notes. Ask Alex for a new link.' };
    expect(readRefusal(429, JSON.stringify(body), '86400')).toEqual({ status: 429, code: body.error, message: body.message, retryAfterSeconds: 86_400 });
    expect(readRefusal(429, body, null)).toEqual({ status: 429, code: body.error, message: body.message });
  });

  it('should read a resumable upload problem by its error and message beside the type', () => {
    const problem = {
      type: 'https://iana.org/assignments/http-problem-types#completed-upload',
      title: 'upload is already completed',
      error: 'completed-upload',
      message: 'This note has already arrived in full.',
    };
    expect(readRefusal(400, JSON.stringify(problem))).toMatchObject({ code: 'completed-upload', message: problem.message });
  });

  it('should give no code and no sentence for what is not ours: a proxy’s page, an empty or cut body, empty fields', () => {
    expect(readRefusal(502, '<html><body>Bad Gateway</body></html>')).toEqual({ status: 502 });
    expect(readRefusal(0, '')).toEqual({ status: 0 });
    expect(readRefusal(503, '{"error":"storage_unav')).toEqual({ status: 503 });
    expect(readRefusal(500, undefined)).toEqual({ status: 500 });
    expect(readRefusal(400, { error: '', message: 42 })).toEqual({ status: 400 });
  });

  it('should take Retry-After only as seconds', () => {
    expect(readRefusal(503, '', '10').retryAfterSeconds).toBe(10);
    expect(readRefusal(503, '', 'Wed, 21 Oct 2026 07:28:00 GMT').retryAfterSeconds).toBeUndefined();
    expect(readRefusal(503, '', null).retryAfterSeconds).toBeUndefined();
  });
});
