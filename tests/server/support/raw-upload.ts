/** Note uploads over real sockets, from any loopback address, whole or dribbled, for tests of hostile and slow clients. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { digestOf } from './uploads.js';

export interface RawAnswer {
  status: number;
  error?: string;
  retryAfter?: string;
}

export interface RawUpload {
  base: string;
  token: string;
  body: Buffer;
  /** 127.0.0.N: all of 127.0.0.0/8 is this machine. */
  localAddress?: string;
  headers?: Record<string, string>;
}

export function uploadRequest(u: RawUpload, onAnswer: (answer: RawAnswer) => void): http.ClientRequest {
  const req = http.request(
    new URL(`/api/r/${u.token}/notes/${randomUUID()}?marker=mi-13&from=Sam`, u.base),
    {
      method: 'PUT',
      localAddress: u.localAddress,
      agent: false,
      headers: {
        'content-type': 'audio/webm;codecs=opus',
        'content-digest': digestOf(u.body),
        'content-length': String(u.body.length),
        ...u.headers,
      },
    },
    (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => {
        let error: string | undefined;
        try {
          error = (JSON.parse(text) as { error?: string }).error;
        } catch {
          // not JSON: a receipt has no error
        }
        onAnswer({ status: res.statusCode ?? 0, error, retryAfter: res.headers['retry-after'] });
      });
    },
  );
  req.on('error', () => onAnswer({ status: 0 }));
  return req;
}

/** Sends the whole note at once. Status 0 means the connection failed or was closed without an answer. */
export function upload(u: RawUpload): Promise<RawAnswer> {
  return new Promise((resolve) => uploadRequest(u, resolve).end(u.body));
}
