/** Note uploads to a server process over real HTTP, and a steady stream of them for tests that stop or copy a busy server. */
import { randomUUID } from 'node:crypto';
import type { NoteReceipt } from '../../../contract/api.js';
import { digestOf } from './uploads.js';

export interface RemoteAnswer {
  status: number;
  receipt?: NoteReceipt;
  retryAfter?: string | null;
  /** The body of any answer but a 201, to say why in a failed assertion. */
  problem?: string;
}

export async function uploadTo(base: string, token: string, noteId: string, body: Buffer, contentType = 'audio/webm;codecs=opus'): Promise<RemoteAnswer> {
  try {
    const res = await fetch(`${base}/api/r/${token}/notes/${noteId}?marker=mi-13&from=Kim`, {
      method: 'PUT',
      headers: { 'content-type': contentType, 'content-digest': digestOf(body) },
      body: new Uint8Array(body),
    });
    const text = await res.text();
    return res.status === 201
      ? { status: res.status, receipt: JSON.parse(text) as NoteReceipt, retryAfter: res.headers.get('retry-after') }
      : { status: res.status, retryAfter: res.headers.get('retry-after'), problem: text };
  } catch {
    return { status: 0 }; // the connection failed or was cut: not acknowledged
  }
}

/** Keeps `concurrency` uploads going until stopped; remembers which notes were answered 201 and when. */
export function uploadStream(base: () => string, token: string, body: Buffer, concurrency = 3) {
  const acknowledged = new Map<string, number>();
  const answers: RemoteAnswer[] = [];
  let inFlight = 0;
  let running = true;
  const lane = async () => {
    while (running) {
      const noteId = randomUUID();
      inFlight += 1;
      const answer = await uploadTo(base(), token, noteId, body);
      inFlight -= 1;
      answers.push(answer);
      if (answer.status === 201) acknowledged.set(noteId, Date.now());
      // A refused or failed upload is tried again a little later, as the recorder does.
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const lanes = Array.from({ length: concurrency }, lane);
  return {
    acknowledged,
    answers,
    inFlight: () => inFlight,
    async stop() {
      running = false;
      await Promise.all(lanes);
    },
  };
}
