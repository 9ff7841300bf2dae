/** Raw HTTP for resumable-upload tests: requests whose body is cut after N bytes, as a dropped link does. */
import http from 'node:http';
import { digestOf } from './uploads.js';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send only this many body bytes, then close our side: the server sees the body end early. */
  cutAfter?: number;
}

/**
 * Sends one request on its own connection and resolves when the server has answered or closed it,
 * so whatever the server stores for a cut body is stored by then. Status 0: no answer.
 */
export function send(base: string, r: RawRequest): Promise<Answer> {
  return new Promise((resolve) => {
    const body = r.body ?? Buffer.alloc(0);
    const req = http.request(new URL(r.path, base), {
      method: r.method,
      headers: { ...r.headers, 'content-length': String(body.length) },
      agent: false,
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    if (r.cutAfter === undefined) {
      req.end(body);
      return;
    }
    req.write(body.subarray(0, r.cutAfter), () => {
      // Half-close after the bytes are handed to the kernel: they arrive, then the body ends early.
      req.socket?.end();
    });
  });
}

export const notePath = (token: string, noteId: string) => `/api/r/${token}/notes/${noteId}?marker=mi-13&from=Sam`;
export const uploadPathOf = (token: string, noteId: string) => `/api/r/${token}/uploads/${noteId}`;

/** The recorder's first attempt: the whole note in a PUT that may be upgraded to a resumable upload. */
export const creation = (token: string, noteId: string, body: Buffer, cutAfter?: number, digest = digestOf(body)): RawRequest => ({
  method: 'PUT',
  path: notePath(token, noteId),
  headers: {
    'content-type': 'audio/webm;codecs=opus',
    'content-digest': digest,
    'upload-complete': '?1',
    'upload-length': String(body.length),
    'upload-draft-interop-version': '8',
  },
  body,
  cutAfter,
});

export const offsetOf = (base: string, token: string, noteId: string) =>
  send(base, { method: 'HEAD', path: uploadPathOf(token, noteId), headers: {} });

/** PATCH of body[from..to) (to defaults to the end, completing the upload). */
export const append = (token: string, noteId: string, body: Buffer, from: number, opts: { to?: number; cutAfter?: number } = {}): RawRequest => {
  const to = opts.to ?? body.length;
  return {
    method: 'PATCH',
    path: uploadPathOf(token, noteId),
    headers: {
      'content-type': 'application/partial-upload',
      'upload-offset': String(from),
      'upload-complete': to === body.length ? '?1' : '?0',
      'upload-draft-interop-version': '8',
    },
    body: body.subarray(from, to),
    cutAfter: opts.cutAfter,
  };
};
