/**
 * The one reader of the server's error answers, for every client (the page's requests, the
 * outbox's replay, the push controls): the `{ error, message }` of contract/refusals.ts's
 * catalogue, and when to ask again. What is not our shape (a proxy's page, a cut body) reads as a
 * refusal without a code, so the caller falls back to its own words.
 */

export interface ReadRefusal {
  status: number;
  /** The catalogue's code (contract/refusals.ts); a newer server may send one this client does not know. */
  code?: string;
  /** The server's sentence for a person, in English. */
  message?: string;
  /** Retry-After in seconds, when the answer gives it as a number. */
  retryAfterSeconds?: number;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

function parsed(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** `body`: the answer's text, or its JSON already parsed (undefined when it had none). `retryAfter`: the header as sent. */
export function readRefusal(status: number, body: unknown, retryAfter?: string | null): ReadRefusal {
  const json = parsed(body);
  const fields = typeof json === 'object' && json !== null ? (json as { error?: unknown; message?: unknown }) : {};
  const code = text(fields.error);
  const message = text(fields.message);
  const seconds = Number(retryAfter ?? Number.NaN);
  return { status, ...(code && { code }), ...(message && { message }), ...(Number.isFinite(seconds) && { retryAfterSeconds: seconds }) };
}
