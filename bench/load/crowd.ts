/**
 * Race morning's crowd for the bench: many runners' apps on one server, each its own
 * account with an entry in the live race, holding one sync request, downloading each note as it
 * arrives converted and posting a batch of positions every 30 s; runners signing in and entering;
 * friends uploading notes. Plain fetch, not the generated client: a thousand of these run in one
 * process beside the server, and the load generator must cost less than what it measures.
 *
 * Node 20's global fetch (undici's global Agent) opens as many connections to one origin as there
 * are requests in flight (its pool has no per-origin limit), so a thousand held requests are a
 * thousand sockets, as a thousand phones would be.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { FAKE_APPLE_NONCE, type FakeApple } from '../../stand-ins/fakeApple.js';
import { putNote, type FriendNote } from '../../stand-ins/friend.js';
import type { RunnerOnCourse } from '../../stand-ins/runner.js';

/** Every failed or refused request, by what was asked and in which phase. */
export class Tally {
  phase = 'setup';
  readonly counts = new Map<string, number>();
  readonly samples: string[] = [];
  add(what: string, detail: string): void {
    const key = `${this.phase}: ${what}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (this.samples.length < 12) this.samples.push(`${key} ${detail}`);
  }
  total(phase?: string): number {
    let n = 0;
    for (const [key, count] of this.counts) if (phase === undefined || key.startsWith(`${phase}:`)) n += count;
    return n;
  }
}

/** Where a failure is counted: a Tally, or a thread's messages to the Tally in the main thread. */
export type Errors = Pick<Tally, 'add'>;

/** When each note's upload was answered and when a held answer first carried it converted. */
export class Deliveries {
  private readonly notes = new Map<string, { phase: string; okAt?: number; seenAt?: number; waiters: Array<() => void> }>();
  private entry(id: string) {
    let e = this.notes.get(id);
    if (!e) this.notes.set(id, (e = { phase: '', waiters: [] }));
    return e;
  }
  uploaded(id: string, phase: string, okAt: number): void {
    const e = this.entry(id);
    e.phase = phase;
    e.okAt = okAt;
  }
  seen(id: string, at: number): void {
    const e = this.entry(id);
    if (e.seenAt !== undefined) return;
    e.seenAt = at;
    for (const w of e.waiters.splice(0)) w();
  }
  /** Resolves when a held answer carried the note converted (or at once if one did). */
  whenSeen(id: string): Promise<void> {
    const e = this.entry(id);
    return e.seenAt !== undefined ? Promise.resolve() : new Promise((resolve) => e.waiters.push(resolve));
  }
  /**
   * Milliseconds from the upload's 201 to the held answer, for the notes uploaded in this phase; a
   * note no answer carried yet counts as `now` minus its 201 (a lower bound), so a backlog shows.
   */
  samples(phase: string, now = Date.now()): number[] {
    return [...this.notes.values()].filter((e) => e.phase === phase && e.okAt !== undefined).map((e) => Math.max(0, (e.seenAt ?? now) - e.okAt!));
  }
  /** When a held answer first carried the note converted (epoch ms), undefined if none did yet. */
  seenAt(id: string): number | undefined {
    return this.notes.get(id)?.seenAt;
  }
  /** Notes uploaded in this phase that a held answer carried converted. */
  delivered(phase: string): number {
    return [...this.notes.values()].filter((e) => e.phase === phase && e.okAt !== undefined && e.seenAt !== undefined).length;
  }
  /** Notes uploaded in this phase that no held answer carried converted (yet). */
  missing(phase: string): number {
    return [...this.notes.values()].filter((e) => e.phase === phase && e.okAt !== undefined && e.seenAt === undefined).length;
  }
}

interface Answer {
  status: number;
  body: unknown;
  ms: number;
  headers: Headers;
}

async function call(url: string, init: { method?: string; token?: string; json?: unknown; signal?: AbortSignal; timeoutMs?: number }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const timeout = AbortSignal.timeout(init.timeoutMs ?? 30_000);
  const started = performance.now();
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body, ms, headers: res.headers };
}

const brief = (a: Answer) => `${a.status} ${JSON.stringify(a.body).slice(0, 120)}`;
const failure = (err: unknown) => (err instanceof Error ? `${err.name}: ${(err.cause as Error | undefined)?.message ?? err.message}` : String(err));

/** Sign in with Apple as `sub`; answers the access token and how long the server took, or undefined (counted). */
export async function signIn(base: string, apple: FakeApple, sub: string, errors: Errors): Promise<{ accessToken: string; ms: number } | undefined> {
  // The identity token is the phone's (Apple's) work: made before the clock starts.
  return signInWith(base, await apple.token({ sub }), errors);
}

/** Sign in with an identity token made beforehand (a thread without Apple's key: friends-worker.ts); as signIn(). */
export async function signInWith(base: string, identityToken: string, errors: Errors): Promise<{ accessToken: string; ms: number } | undefined> {
  try {
    const a = await call(`${base}/api/auth/apple`, { method: 'POST', json: { identityToken, nonce: FAKE_APPLE_NONCE } });
    if (a.status !== 200) return void errors.add('sign-in', brief(a));
    return { accessToken: (a.body as { accessToken: string }).accessToken, ms: a.ms };
  } catch (err) {
    return void errors.add('sign-in', failure(err));
  }
}

/** Enters the race and shares progress; answers the entry and its link's token, or undefined (counted). */
export async function enter(
  base: string,
  accessToken: string,
  raceId: string,
  name: string,
  errors: Errors,
): Promise<{ entryId: string; token: string } | undefined> {
  try {
    const a = await call(`${base}/api/entries`, { method: 'POST', token: accessToken, json: { raceId, displayName: name } });
    if (a.status !== 201) return void errors.add('enter', brief(a));
    const entry = a.body as { id: string; link: { token: string } };
    const shared = await call(`${base}/api/entries/${entry.id}`, { method: 'PATCH', token: accessToken, json: { shareProgress: true } });
    if (shared.status !== 200) return void errors.add('share progress', brief(shared));
    return { entryId: entry.id, token: entry.link.token };
  } catch (err) {
    return void errors.add('enter', failure(err));
  }
}

/** A friend's note sent as the recorder sends it (one PUT with Content-Digest); answers how long it took, or undefined (counted). */
export async function uploadNote(base: string, token: string, note: FriendNote, marker: string, from: string, errors: Errors): Promise<number | undefined> {
  const started = performance.now();
  try {
    const res = await putNote(base, token, note, marker, from, AbortSignal.timeout(60_000));
    const text = await res.text();
    if (res.status !== 201) return void errors.add('note upload', `${res.status} ${text.slice(0, 120)}`);
    return performance.now() - started;
  } catch (err) {
    return void errors.add('note upload', failure(err));
  }
}

interface SyncAnswer {
  cursor: string;
  markers: Array<{ notes?: Array<{ id: string; status: string; audioUrl: string | null }> }>;
}

/** Requests held open by the server right now, over every app of this process. */
let heldNow = 0;
export const heldInFlight = () => heldNow;

/** One runner's phone on race morning: signed in, entered, holding one sync request, posting positions. */
export class CrowdApp {
  private accessToken = '';
  entryId = '';
  token = '';
  private cursor = '';
  private stopped = false;
  private readonly ending = new AbortController();
  private holding: Promise<void> | undefined;
  private readonly downloads = new Set<Promise<void>>();

  constructor(
    private readonly base: string,
    private readonly opts: {
      raceId: string;
      sub: string;
      name: string;
      runner: RunnerOnCourse;
      startsAt: number;
      waitSeconds: number;
      errors: Tally;
      deliveries: Deliveries;
    },
  ) {}

  /** Signs in, enters, shares progress and takes the list once for its cursor; false if any step failed (counted). */
  async setup(apple: FakeApple): Promise<boolean> {
    const { errors } = this.opts;
    const session = await signIn(this.base, apple, this.opts.sub, errors);
    if (!session) return false;
    this.accessToken = session.accessToken;
    const entry = await enter(this.base, this.accessToken, this.opts.raceId, this.opts.name, errors);
    if (!entry) return false;
    ({ entryId: this.entryId, token: this.token } = entry);
    try {
      const a = await call(`${this.base}/api/entries/${this.entryId}/notes`, { token: this.accessToken });
      if (a.status !== 200) {
        errors.add('sync', brief(a));
        return false;
      }
      this.cursor = (a.body as SyncAnswer).cursor;
      return true;
    } catch (err) {
      errors.add('sync', failure(err));
      return false;
    }
  }

  /** Holds one sync request after another until stop(); each note that arrives converted is downloaded. */
  startHolding(): void {
    const { errors, deliveries } = this.opts;
    this.holding = (async () => {
      while (!this.stopped) {
        let pause = 0;
        heldNow++;
        try {
          const a = await call(
            `${this.base}/api/entries/${this.entryId}/notes?after=${encodeURIComponent(this.cursor)}&wait=${this.opts.waitSeconds}&until=playable`,
            {
              token: this.accessToken,
              signal: this.ending.signal,
              timeoutMs: (this.opts.waitSeconds + 10) * 1000,
            },
          );
          const at = Date.now();
          if (a.status === 200) {
            const body = a.body as SyncAnswer;
            for (const note of body.markers.flatMap((m) => m.notes ?? [])) {
              if (note.status !== 'converted' || !note.audioUrl) continue;
              deliveries.seen(note.id, at);
              const download = this.download(note.audioUrl);
              this.downloads.add(download);
              void download.finally(() => this.downloads.delete(download));
            }
            this.cursor = body.cursor;
          } else {
            errors.add('held sync', brief(a));
            pause = Number(a.headers.get('retry-after') ?? 1) * 1000;
          }
        } catch (err) {
          if (!this.stopped) {
            errors.add('held sync', failure(err));
            pause = 1_000;
          }
        } finally {
          heldNow--;
        }
        if (pause && !this.stopped) await new Promise((r) => setTimeout(r, pause));
      }
    })();
  }

  /** The note's audio, as the app takes it for playing at its marker. */
  private async download(audioUrl: string): Promise<void> {
    try {
      const res = await fetch(audioUrl, { signal: AbortSignal.any([this.ending.signal, AbortSignal.timeout(60_000)]) });
      await res.arrayBuffer();
      if (res.status !== 200) this.opts.errors.add('audio download', String(res.status));
    } catch (err) {
      if (!this.stopped) this.opts.errors.add('audio download', failure(err));
    }
  }

  /** The last 30 s of fixes, one every 5 s, as one batch (what the app sends every 30 s). */
  async postPositions(): Promise<void> {
    const now = Date.now();
    const positions = Array.from({ length: 6 }, (_, i) => {
      const at = now - (5 - i) * 5_000;
      return { ...this.opts.runner.fixAt(at - this.opts.startsAt), at: new Date(at).toISOString() };
    });
    try {
      const a = await call(`${this.base}/api/entries/${this.entryId}/positions`, { method: 'POST', token: this.accessToken, json: { positions } });
      if (a.status !== 200) this.opts.errors.add('positions', brief(a));
    } catch (err) {
      this.opts.errors.add('positions', failure(err));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ending.abort();
    await this.holding;
    await Promise.all(this.downloads);
  }
}

/** A fresh note id for the same audio (a friend's recording; the bytes are made once per length). */
export const again = (note: FriendNote): FriendNote => ({ ...note, id: randomUUID() });
