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
  /** 127.0.0.N: all of 127.0.0.0/8 is this machine, so each N is another client address. */
  localAddress?: string;
}

const NO_ANSWER: Answer = { status: 0, headers: {}, body: '' };

/** Opens the request on its own connection; `answer` resolves with the server's answer, or status 0 once the connection ends without one. */
function open(base: string, r: RawRequest) {
  const body = r.body ?? Buffer.alloc(0);
  let answered!: (answer: Answer) => void;
  const answer = new Promise<Answer>((resolve) => (answered = resolve));
  let responded = false;
  const req = http.request(
    new URL(r.path, base),
    {
      method: r.method,
      headers: { ...r.headers, 'content-length': String(body.length) },
      agent: false,
      localAddress: r.localAddress,
    },
    (res) => {
      responded = true;
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => answered({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('close', () => answered(NO_ANSWER));
    },
  );
  req.on('error', () => answered(NO_ANSWER));
  req.on('close', () => responded || answered(NO_ANSWER));
  return { req, body, answer };
}

/**
 * Sends one request on its own connection and resolves when the server has answered or closed it,
 * so whatever the server stores for a cut body is stored by then. Status 0: no answer.
 */
export function send(base: string, r: RawRequest): Promise<Answer> {
  const { req, body, answer } = open(base, r);
  if (r.cutAfter === undefined) {
    req.end(body);
  } else {
    req.write(body.subarray(0, r.cutAfter), () => {
      // Half-close after the bytes are handed to the kernel: they arrive, then the body ends early.
      req.socket?.end();
    });
  }
  return answer;
}

export interface Trickle {
  /** The answer, or status 0 when the connection ended without one. */
  answer: Promise<Answer>;
  /** Body bytes written so far. */
  sent(): number;
  /** Writes the rest of the body at once. */
  finish(): void;
  /** Drops the connection, as a phone losing its signal. */
  cut(): void;
}

/**
 * A request from a phone on a failing link: the headers and the first `first` body bytes now,
 * then one more byte every `everyMs`, never the last one unless told to finish.
 */
export function trickle(base: string, r: RawRequest, first: number, everyMs = 2_000): Trickle {
  const { req, body, answer } = open(base, r);
  let sent = first;
  const drip = setInterval(() => {
    if (sent < body.length - 1) req.write(body.subarray(sent, ++sent));
  }, everyMs);
  req.on('close', () => clearInterval(drip));
  req.write(body.subarray(0, first));
  return {
    answer,
    sent: () => sent,
    finish() {
      clearInterval(drip);
      req.end(body.subarray(sent));
      sent = body.length;
    },
    cut() {
      clearInterval(drip);
      req.destroy();
    },
  };
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

/** A creation that sends only the first `first` bytes of `note` and says more will follow: an unfinished upload, at once. */
export const partialCreation = (token: string, noteId: string, note: Buffer, first: number): RawRequest => {
  const request = creation(token, noteId, note.subarray(0, first), undefined, digestOf(note));
  return { ...request, headers: { ...request.headers, 'upload-complete': '?0', 'upload-length': String(note.length) } };
};

export const offsetOf = (base: string, token: string, noteId: string) => send(base, { method: 'HEAD', path: uploadPathOf(token, noteId), headers: {} });

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
