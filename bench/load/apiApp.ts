/**
 * One runner's phone on race morning for the API-server bench, as docs/app-contract.md has it:
 * signed in with Apple, entered and sharing progress; holding one sync request after another
 * (after=<cursor>&wait=25&until=playable); a batch of the last 30 s of fixes every 30 s; each note
 * that arrives converted downloaded and reported played; the session refreshed before its access
 * token runs out. Every answer's time goes to a sink (./appFleet-child.ts keeps them).
 */
import { FAKE_APPLE_NONCE } from '../../stand-ins/fakeApple.js';
import { runnerOnCourse, type RunnerOnCourse } from '../../stand-ins/runner.js';
import { seededRandom } from '../../stand-ins/seededRandom.js';
import { appRequest, failureText, refusedText, type AppAnswer } from './appHttp.js';

/** The race and the rhythm every app of a run shares. */
export interface AppWorld {
  base: string;
  raceId: string;
  startsAt: number;
  track: Array<[number, number]>;
  holdSeconds: number;
  positionsEveryMs: number;
  /** A session is refreshed this often (a minute inside the access token's life); the first at a random point of it. */
  refreshEveryMs: number;
}

/** Who one app is: its Apple identity (made where the fake Apple's key is) and its runner's pace. */
export interface AppPlan {
  identityToken: string;
  name: string;
  seed: number;
  secondsPerKm: number;
}

export interface AppSink {
  /** A sync answer (200) after `ms`; `told`: it carried a note converted. */
  sync(ms: number, told: boolean): void;
  positions(ms: number): void;
  audio(ms: number): void;
  played(ms: number): void;
  refresh(ms: number): void;
  /** A held answer first carried this note converted, at `at` (epoch ms). */
  seen(noteId: string, at: number): void;
  error(what: string, detail: string): void;
}

export interface Activity {
  holds: boolean;
  positions: boolean;
  /** Refreshes due while off wait until it is on again (the token outlives a pause of a few minutes). */
  refresh: boolean;
}

interface SyncBody {
  cursor: string;
  markers: Array<{ marker: string; notes?: Array<{ id: string; status: string; audioUrl: string | null }> }>;
}

interface SessionBody {
  accessToken: string;
  refreshToken: string;
}

export class ApiApp {
  private session: SessionBody = { accessToken: '', refreshToken: '' };
  private entryId = '';
  private cursor = '';
  /** The entry's recorder link, where friends send this runner notes. */
  link = '';
  private readonly runner: RunnerOnCourse;
  private readonly random: () => number;
  private readonly seenNotes = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private activity: Activity = { holds: false, positions: false, refresh: false };
  private holding: { stop: AbortController; done: Promise<void> } | undefined;
  private positionTimer: NodeJS.Timeout | undefined;
  private refreshDueAt = 0;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly world: AppWorld,
    private readonly plan: AppPlan,
    private readonly sink: AppSink,
  ) {
    this.runner = runnerOnCourse(world.track, plan.secondsPerKm, { seed: plan.seed });
    this.random = seededRandom(plan.seed);
  }

  private call(path: string, init: Parameters<typeof appRequest>[2] = {}): Promise<AppAnswer> {
    return appRequest(this.world.base, path, { token: this.session.accessToken, ...init });
  }

  /** One step of the setup: its answer's body when the status is the one expected, else undefined (counted). */
  private async expect<T>(what: string, status: number, ask: () => Promise<AppAnswer>): Promise<T | undefined> {
    try {
      const a = await ask();
      if (a.status === status) return a.body as T;
      this.sink.error(what, refusedText(a));
    } catch (err) {
      this.sink.error(what, failureText(err));
    }
    return undefined;
  }

  /** Signs in, enters, shares progress and lists the notes once for a cursor; false if a step failed (counted). */
  async setup(): Promise<boolean> {
    const { base, raceId } = this.world;
    const session = await this.expect<SessionBody>('sign-in', 200, () =>
      appRequest(base, '/api/auth/apple', { method: 'POST', json: { identityToken: this.plan.identityToken, nonce: FAKE_APPLE_NONCE } }),
    );
    if (!session) return false;
    this.session = session;
    const entry = await this.expect<{ id: string; link: { token: string } }>('enter', 201, () =>
      this.call('/api/entries', { method: 'POST', json: { raceId, displayName: this.plan.name } }),
    );
    if (!entry) return false;
    this.entryId = entry.id;
    this.link = entry.link.token;
    const shared = await this.expect<object>('share progress', 200, () =>
      this.call(`/api/entries/${this.entryId}`, { method: 'PATCH', json: { shareProgress: true } }),
    );
    const list = shared && (await this.expect<SyncBody>('sync', 200, () => this.call(`/api/entries/${this.entryId}/notes`)));
    if (!list) return false;
    this.cursor = list.cursor;
    // The app's first batch once the race is live places the runner (every marker behind at once):
    // made here, so the windows time batches as the race goes on, not first placements.
    if (!(await this.postPositions())) return false;
    this.refreshDueAt = Date.now() + this.random() * this.world.refreshEveryMs;
    return true;
  }

  /** Turns the app's rhythms on or off; held requests end at once when holds go off. */
  async setActivity(next: Activity): Promise<void> {
    const was = this.activity;
    this.activity = next;
    if (next.positions && !was.positions) {
      this.positionTimer = setTimeout(() => this.positionsTick(), this.random() * this.world.positionsEveryMs);
    } else if (!next.positions) clearTimeout(this.positionTimer);
    clearTimeout(this.refreshTimer);
    if (next.refresh) this.refreshTimer = setTimeout(() => this.refreshTick(), Math.max(0, this.refreshDueAt - Date.now()));
    if (next.holds && !this.holding) this.startHolding();
    if (!next.holds && this.holding) {
      const { stop, done } = this.holding;
      this.holding = undefined;
      stop.abort();
      await done;
    }
    if (!next.holds && !next.positions) await Promise.all(this.inFlight);
  }

  private track<T>(p: Promise<T>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private positionsTick(): void {
    if (!this.activity.positions) return;
    this.positionTimer = setTimeout(() => this.positionsTick(), this.world.positionsEveryMs);
    this.track(this.postPositions());
  }

  /** The last 30 s of fixes, one every 5 s, as one batch; false if it was not taken (counted). */
  private async postPositions(): Promise<boolean> {
    const now = Date.now();
    const positions = Array.from({ length: 6 }, (_, i) => {
      const at = now - (5 - i) * 5_000;
      return { ...this.runner.fixAt(at - this.world.startsAt), at: new Date(at).toISOString() };
    });
    try {
      const a = await this.call(`/api/entries/${this.entryId}/positions`, { method: 'POST', json: { positions } });
      if (a.status === 200) this.sink.positions(a.ms);
      else this.sink.error('positions', refusedText(a));
      return a.status === 200;
    } catch (err) {
      this.sink.error('positions', failureText(err));
      return false;
    }
  }

  private refreshTick(): void {
    if (!this.activity.refresh) return;
    this.refreshDueAt = Date.now() + this.world.refreshEveryMs;
    this.refreshTimer = setTimeout(() => this.refreshTick(), this.world.refreshEveryMs);
    this.track(this.refresh());
  }

  private async refresh(): Promise<void> {
    try {
      const a = await appRequest(this.world.base, '/api/auth/refresh', { method: 'POST', json: { refreshToken: this.session.refreshToken } });
      if (a.status !== 200) return this.sink.error('refresh', refusedText(a));
      this.session = a.body as SessionBody;
      this.sink.refresh(a.ms);
    } catch (err) {
      this.sink.error('refresh', failureText(err));
    }
  }

  private startHolding(): void {
    const stop = new AbortController();
    const done = (async () => {
      while (!stop.signal.aborted) {
        const pause = await this.holdOnce(stop.signal);
        if (pause && !stop.signal.aborted) await new Promise((r) => setTimeout(r, pause));
      }
    })();
    this.holding = { stop, done };
  }

  /** One held request; answers how long to wait before the next (0: at once). */
  private async holdOnce(signal: AbortSignal): Promise<number> {
    const path = `/api/entries/${this.entryId}/notes?after=${encodeURIComponent(this.cursor)}&wait=${this.world.holdSeconds}&until=playable`;
    try {
      const a = await this.call(path, { signal, timeoutMs: (this.world.holdSeconds + 10) * 1000 });
      const at = Date.now();
      if (a.status !== 200) {
        this.sink.error('held sync', refusedText(a));
        return Number(a.headers['retry-after'] ?? 1) * 1000;
      }
      const body = a.body as SyncBody;
      let told = false;
      for (const m of body.markers) {
        for (const note of m.notes ?? []) {
          if (note.status !== 'converted' || !note.audioUrl || this.seenNotes.has(note.id)) continue;
          this.seenNotes.add(note.id);
          told = true;
          this.sink.seen(note.id, at);
          this.track(this.takeNote(note.id, note.audioUrl, m.marker));
        }
      }
      this.sink.sync(a.ms, told);
      this.cursor = body.cursor;
      return 0;
    } catch (err) {
      if (signal.aborted) return 0;
      this.sink.error('held sync', failureText(err));
      return 1_000;
    }
  }

  /** The note's audio as the app takes it ahead of its marker, then the play reported (here at once). */
  private async takeNote(id: string, audioUrl: string, marker: string): Promise<void> {
    try {
      const audio = await appRequest(this.world.base, audioUrl, { discard: true, timeoutMs: 60_000 });
      if (audio.status !== 200) return this.sink.error('audio download', String(audio.status));
      this.sink.audio(audio.ms);
      const played = await this.call(`/api/notes/${id}/played`, { method: 'POST', json: { playedAt: new Date().toISOString(), marker } });
      if (played.status !== 200) return this.sink.error('played', refusedText(played));
      this.sink.played(played.ms);
    } catch (err) {
      this.sink.error('audio download', failureText(err));
    }
  }
}
