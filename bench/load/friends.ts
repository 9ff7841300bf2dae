/**
 * Race morning's timed clients in a thread of their own (./friends-worker.ts): friends
 * uploading notes, entrants signing in and entering, and the probes. In the field a friend's phone
 * is not also running a thousand runners' apps; in the bench's main thread their requests' answers
 * would wait behind the simulated apps' JavaScript (sync answers parsed, audio downloaded, timers)
 * and that wait would be timed as the server's. The thread still shares the machine's 2 cores with
 * the server, its ffmpeg and the apps. It is only a client: it takes what it needs by message and
 * answers each request's time, so the main thread keeps its Tally and Deliveries as before.
 */
import { Worker } from 'node:worker_threads';
import type { Errors } from './crowd.js';
import type { LoopDelay } from './loopDelay.js';

export interface FriendsSetup {
  base: string;
  /** The friends' recordings, one per length (stand-ins/friend.ts). */
  notes: Array<{ seconds: number; contentType: string; audio: Uint8Array }>;
}

/** What the race morning's load sends, at which rates, and to which links (bench/sections/racemorning/). */
export interface FriendsLoad {
  raceId: string;
  /** The apps' links, one picked at random (seeded) for each friend's note. */
  links: string[];
  /** Made by the main thread's fake Apple (the key stays there), one per entrant. */
  identityTokens: string[];
  seed: number;
  lengths: number[];
  markers: string[];
  notesPerSecond: number;
  entrantsPerSecond: number;
}

export interface ProbeAsk {
  identityToken: string;
  link: string;
  seconds: number;
  marker: string;
  from: string;
}

/** A note the server answered 201: its id, the PUT's time (ms) and when the answer came (epoch ms). */
export interface Upload {
  id: string;
  ms: number;
  okAt: number;
}

export interface ProbeResult {
  signInMs?: number;
  upload?: Upload;
}

export type ToFriends = { kind: 'probe'; n: number; ask: ProbeAsk } | { kind: 'load'; load: FriendsLoad } | { kind: 'stop' };

export type FromFriends =
  | { kind: 'error'; what: string; detail: string }
  | { kind: 'probe'; n: number; result: ProbeResult }
  | { kind: 'signIn'; ms: number }
  | { kind: 'upload'; upload: Upload }
  | ({ kind: 'stopped' } & LoadCounts);

/** How many entrants and friends' notes the load started, and the thread's event-loop delay meanwhile. */
export interface LoadCounts {
  entrants: number;
  friendNotes: number;
  loop: LoopDelay;
}

export interface FriendsEvents {
  errors: Errors;
  /** An entrant's sign-in answered 200 in `ms`. */
  signIn(ms: number): void;
  /** A friend's note (not a probe's) stored. */
  upload(upload: Upload): void;
}

export class FriendsThread {
  private readonly worker: Worker;
  private readonly probes = new Map<number, { resolve(r: ProbeResult): void; reject(e: Error): void }>();
  private stopping: { resolve(counts: LoadCounts): void; reject(e: Error): void } | undefined;
  private failure: Error | undefined;
  private probeCount = 0;

  constructor(setup: FriendsSetup, events: FriendsEvents) {
    const file = new URL('./friends-worker.ts', import.meta.url).href;
    // Node 20 does not apply `--import tsx`'s loader hooks to a worker's entry (ERR_UNKNOWN_FILE_EXTENSION,
    // with execArgv given or inherited): the worker registers tsx itself, then imports the TypeScript.
    const tsx = import.meta.resolve('tsx/esm/api');
    this.worker = new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(file)}); });`, {
      eval: true,
      workerData: setup,
    });
    this.worker.on('message', (m: FromFriends) => {
      if (m.kind === 'error') events.errors.add(m.what, m.detail);
      else if (m.kind === 'signIn') events.signIn(m.ms);
      else if (m.kind === 'upload') events.upload(m.upload);
      else if (m.kind === 'probe') {
        this.probes.get(m.n)?.resolve(m.result);
        this.probes.delete(m.n);
      } else this.stopping?.resolve(m);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const p of this.probes.values()) p.reject(err);
      this.probes.clear();
      this.stopping?.reject(err);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the friends' thread exited (code ${code})`)));
  }

  private send(m: ToFriends): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(m);
  }

  /** One probe: a sign-in, then a friend's note to `link`, one after the other. */
  probe(ask: ProbeAsk): Promise<ProbeResult> {
    const n = this.probeCount++;
    return new Promise((resolve, reject) => {
      this.probes.set(n, { resolve, reject });
      try {
        this.send({ kind: 'probe', n, ask });
      } catch (err) {
        this.probes.delete(n);
        reject(err as Error);
      }
    });
  }

  /** Starts the entrants and the friends at their rates, until stop(). */
  startLoad(load: FriendsLoad): void {
    this.send({ kind: 'load', load });
  }

  /** Stops the load and waits for its requests in flight; answers how many entrants and notes it started. */
  stop(): Promise<LoadCounts> {
    return new Promise((resolve, reject) => {
      this.stopping = { resolve, reject };
      try {
        this.send({ kind: 'stop' });
      } catch (err) {
        reject(err as Error);
      }
    });
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
