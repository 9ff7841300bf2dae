/**
 * A storage fault (../storage/faults.ts) as the answer to a request: 503 storage_unavailable or
 * storage_full with Retry-After (./refusals.ts), and the mark the request then carries so the
 * metrics count the fault by its kind (server/plugins/metrics.ts). The error handler
 * (../plugins/api-errors.ts) answers; the metrics read; neither knows the other.
 */
import type { FastifyRequest } from 'fastify';
import { storageFaultOf, type StorageFaultKind } from '../storage/faults.js';
import type { ApiProblem } from './problem.js';
import { refusal } from './refusals.js';

const faulted = new WeakMap<FastifyRequest, StorageFaultKind>();

/** The kind of storage fault `req` was answered for, or undefined. */
export const storageFaultMarkOf = (req: FastifyRequest): StorageFaultKind | undefined => faulted.get(req);

/**
 * The refusal for `err` when it is a storage fault, marking `req` with its kind; undefined for any
 * other error. `noteKept`: the request came from the recorder, whose note waits on the phone.
 */
export function storageFaultAnswer(err: unknown, req: FastifyRequest, noteKept: boolean): ApiProblem | undefined {
  const kind = storageFaultOf(err);
  if (!kind) return undefined;
  faulted.set(req, kind);
  return kind === 'disk_full' ? refusal.storage_full(undefined, noteKept) : refusal.storage_unavailable(undefined, noteKept);
}
