/**
 * The runners' apps of the API-server bench, in child processes of their own (./appFleet-child.ts),
 * so that the server under test shares no process with its load and the load's CPU can be read
 * from /proc beside the server's. The apps are dealt out evenly; each process answers for its own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Activity, AppPlan, AppWorld } from './apiApp.js';
import type { LoopDelay } from './loopDelay.js';

/** What a fleet process timed since it was last asked. */
export interface FleetStats {
  /** Sync answers (200), and of them the times of those that carried a note converted. */
  syncAnswers: number;
  told: number[];
  /** Answers without a note that came later than the wait asked for plus a second, and the longest. */
  lateHolds: number;
  longestHoldMs: number;
  positions: number[];
  audio: number[];
  played: number[];
  refresh: number[];
  /** [note id, epoch ms] when a held answer first carried it converted. */
  seen: Array<[string, number]>;
  errors: Record<string, number>;
  errorSamples: string[];
  /** The process's event-loop delay (the largest of the processes when merged). */
  loop: LoopDelay;
}

/** Nothing timed yet. */
export const emptyFleetStats = (): FleetStats => ({
  syncAnswers: 0,
  told: [],
  lateHolds: 0,
  longestHoldMs: 0,
  positions: [],
  audio: [],
  played: [],
  refresh: [],
  seen: [],
  errors: {},
  errorSamples: [],
  loop: { p50: 0, p99: 0, max: 0 },
});

export type ToFleet =
  | { kind: 'world'; world: AppWorld }
  | { kind: 'setup'; plans: AppPlan[] }
  | { kind: 'activity'; activity: Activity }
  | { kind: 'collect' }
  | { kind: 'stop' };

export type FromFleet =
  | { kind: 'started' }
  | { kind: 'ready'; links: string[]; failed: number }
  | { kind: 'activity-set' }
  | { kind: 'collected'; stats: FleetStats };

type Waiters = Map<FromFleet['kind'], Array<{ resolve(m: FromFleet): void; reject(err: Error): void }>>;

/** One child: each ask waits for the answer of its kind (one of a kind at a time). */
class FleetProcess {
  private readonly waiters: Waiters = new Map();
  private failure: Error | undefined;

  constructor(readonly child: ChildProcess) {
    child.on('message', (m: FromFleet) => this.waiters.get(m.kind)?.shift()?.resolve(m));
    child.on('exit', (code, signal) => {
      const failure = new Error(`an app fleet process exited (${code ?? signal})`);
      this.failure = failure;
      for (const list of this.waiters.values()) for (const w of list.splice(0)) w.reject(failure);
    });
  }

  ask<K extends FromFleet['kind']>(message: ToFleet | undefined, kind: K): Promise<Extract<FromFleet, { kind: K }>> {
    if (this.failure) return Promise.reject(this.failure);
    const answer = new Promise<Extract<FromFleet, { kind: K }>>((resolve, reject) => {
      const list = this.waiters.get(kind) ?? [];
      this.waiters.set(kind, list);
      list.push({ resolve: (m) => resolve(m as Extract<FromFleet, { kind: K }>), reject });
    });
    if (message) this.child.send(message);
    return answer;
  }
}

function merged(all: FleetStats[]): FleetStats {
  const errors: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.errors)) errors[k] = (errors[k] ?? 0) + v;
  const flat = (k: 'told' | 'positions' | 'audio' | 'played' | 'refresh') => all.flatMap((s) => s[k]);
  return {
    syncAnswers: all.reduce((n, s) => n + s.syncAnswers, 0),
    told: flat('told'),
    lateHolds: all.reduce((n, s) => n + s.lateHolds, 0),
    longestHoldMs: Math.max(0, ...all.map((s) => s.longestHoldMs)),
    positions: flat('positions'),
    audio: flat('audio'),
    played: flat('played'),
    refresh: flat('refresh'),
    seen: all.flatMap((s) => s.seen),
    errors,
    errorSamples: all.flatMap((s) => s.errorSamples).slice(0, 8),
    loop: {
      p50: Math.max(...all.map((s) => s.loop.p50)),
      p99: Math.max(...all.map((s) => s.loop.p99)),
      max: Math.max(...all.map((s) => s.loop.max)),
    },
  };
}

export class AppFleet {
  private dealt = 0;

  private constructor(private readonly processes: FleetProcess[]) {}

  /** Starts `count` processes, each told the race and rhythm its apps keep. */
  static async start(count: number, world: AppWorld): Promise<AppFleet> {
    const file = new URL('./appFleet-child.ts', import.meta.url);
    const processes = Array.from({ length: count }, () => new FleetProcess(fork(file, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })));
    await Promise.all(processes.map((p) => p.ask(undefined, 'started')));
    for (const p of processes) p.child.send({ kind: 'world', world } satisfies ToFleet);
    return new AppFleet(processes);
  }

  pids(): number[] {
    return this.processes.flatMap((p) => (p.child.pid === undefined ? [] : [p.child.pid]));
  }

  /** Signs these apps in (dealt out over the processes) and starts them as the fleet runs now. */
  async add(plans: AppPlan[]): Promise<{ links: string[]; failed: number }> {
    const shares = this.processes.map(() => [] as AppPlan[]);
    for (const plan of plans) shares[this.dealt++ % shares.length]!.push(plan);
    const answers = await Promise.all(this.processes.map((p, i) => p.ask({ kind: 'setup', plans: shares[i]! }, 'ready')));
    return { links: answers.flatMap((a) => a.links), failed: answers.reduce((n, a) => n + a.failed, 0) };
  }

  async setActivity(activity: Activity): Promise<void> {
    await Promise.all(this.processes.map((p) => p.ask({ kind: 'activity', activity }, 'activity-set')));
  }

  /** What every process timed since the last collect. */
  async collect(): Promise<FleetStats> {
    return merged((await Promise.all(this.processes.map((p) => p.ask({ kind: 'collect' }, 'collected')))).map((a) => a.stats));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
            p.child.once('exit', () => resolve());
            p.child.send({ kind: 'stop' } satisfies ToFleet);
          }),
      ),
    );
  }
}
