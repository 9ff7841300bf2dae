/**
 * Owns the answer to "can this server take traffic": the database answers with every migration
 * applied, the blob store answers, the conversion worker's loop is alive, there is room on the
 * disks notes are written to (./free-space.ts), and it is not stopping.
 * Answers are kept for a second so a balancer probing hard costs one check a second.
 */
import type { Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { WorkerHeartbeat } from '../conversion/worker.js';
import { lowOnSpace, type SpaceWatch } from './free-space.js';

export interface Readiness {
  ready: boolean;
  /** What is wrong, in a few words, when not ready. */
  reason?: string;
  checks: Record<string, 'ok' | 'off' | 'failed'>;
}

export interface ReadinessDeps {
  repo: Repository;
  blobs: BlobStore;
  /** Undefined when CONVERT_WORKER=off. */
  worker: { heartbeat(): WorkerHeartbeat } | undefined;
  /** How long the worker's loop may go without a beat while idle, and while converting. */
  idleBeatMs: number;
  busyBeatMs: number;
  stopping: () => boolean;
  /** The folders notes are written to and the least free space each must keep. */
  space: SpaceWatch;
  onFailure: (check: string, err: unknown) => void;
}

const CHECK_TIMEOUT_MS = 2_000;
const CACHE_MS = 1_000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  let cached: { at: number; answer: Promise<Readiness> } | undefined;

  async function check(): Promise<Readiness> {
    const checks: Readiness['checks'] = {};
    const reasons: string[] = [];
    const probe = async (name: string, reason: string, work: () => Promise<boolean>) => {
      try {
        const ok = await withTimeout(work());
        checks[name] = ok ? 'ok' : 'failed';
        if (!ok) reasons.push(reason);
      } catch (err) {
        checks[name] = 'failed';
        reasons.push(reason);
        deps.onFailure(name, err);
      }
    };
    await Promise.all([
      probe('database', 'database unreachable or migrations not applied', () => deps.repo.ops.migrationsApplied()),
      // A missing key is a normal answer; only an unreachable store throws.
      probe('blobs', 'blob store unreachable', async () => (await deps.blobs.exists('readyz-probe'), true)),
      (async () => {
        if (deps.space.minFreeBytes === 0) return void (checks.disk = 'off');
        try {
          const low = await withTimeout(lowOnSpace(deps.space));
          checks.disk = low ? 'failed' : 'ok';
          if (low) reasons.push(low);
        } catch (err) {
          checks.disk = 'failed';
          reasons.push('free disk space unknown');
          deps.onFailure('disk', err);
        }
      })(),
    ]);
    const beat = deps.worker?.heartbeat();
    if (!beat) checks.worker = 'off';
    else {
      const quiet = Date.now() - beat.lastBeatAt;
      const alive = beat.running && quiet < (beat.busyWith.length > 0 ? deps.busyBeatMs : deps.idleBeatMs);
      checks.worker = alive ? 'ok' : 'failed';
      if (!alive) reasons.push('conversion worker stalled');
    }
    if (deps.stopping()) reasons.unshift('shutting down');
    return reasons.length ? { ready: false, reason: reasons.join('; '), checks } : { ready: true, checks };
  }

  return () => {
    if (deps.stopping()) return check();
    if (!cached || Date.now() - cached.at > CACHE_MS) cached = { at: Date.now(), answer: check() };
    return cached.answer;
  };
}
