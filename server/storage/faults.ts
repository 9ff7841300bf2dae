/**
 * Owns which errors are storage faults: the database cannot be reached, the disk (or quota) is
 * full, the blob store (S3) fails. These are not our bugs: a request meeting one is refused with
 * 503 + Retry-After and a code of its own (server/http/refusals.ts), and a conversion meeting one
 * is tried again later without counting against the note (server/conversion/worker.ts).
 *
 * Errors whose code says it wherever they come from (ENOSPC, SQLITE_FULL, a PostgreSQL SQLSTATE
 * of a shut-down server) are read here. A plain network error (ECONNREFUSED, ECONNRESET) is a
 * storage fault only when a driver says so, by throwing a StorageFault around it: a phone cutting
 * its upload gives an ECONNRESET too, and that one is the phone's.
 */

/** What failed, for the answer's code and the metric's label. */
export type StorageFaultKind = 'database_unavailable' | 'store_unavailable' | 'disk_full';

export const STORAGE_FAULT_KINDS: readonly StorageFaultKind[] = ['database_unavailable', 'store_unavailable', 'disk_full'];

/** Thrown by a driver or store around the error it met, once it knows the error is the storage's. */
export class StorageFault extends Error {
  constructor(
    readonly kind: StorageFaultKind,
    cause: unknown,
  ) {
    super(`${kind}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StorageFault';
  }
}

/** A full file system or a user's quota, from the OS, SQLite or PostgreSQL (53100 disk_full). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/**
 * SQLite that cannot do its work now: locked past busy_timeout, or its file cannot be read or
 * written (SQLITE_IOERR_*: a failing or vanished disk), or opened.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|IOERR|CANTOPEN)/;

/**
 * PostgreSQL refusing because it is stopping, restarting or out of connections: 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections,
 * and class 08, connection exceptions.
 */
const PG_UNAVAILABLE = /^(57P0[123]|53300|08[0-9A-Z]{3})$/;

const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The storage fault `err` is (looking through causes and an AggregateError's errors), or undefined. */
export function storageFaultOf(err: unknown, depth = 0): StorageFaultKind | undefined {
  if (err === null || typeof err !== 'object' || depth > 5) return undefined;
  if (err instanceof StorageFault) return err.kind;
  const code = codeOf(err);
  if (code !== undefined) {
    if (FULL_CODES.has(code)) return 'disk_full';
    if (SQLITE_UNAVAILABLE.test(code) || PG_UNAVAILABLE.test(code)) return 'database_unavailable';
  }
  const nested = [(err as { cause?: unknown }).cause, ...(Array.isArray((err as { errors?: unknown }).errors) ? (err as { errors: unknown[] }).errors : [])];
  for (const inner of nested) {
    const kind = storageFaultOf(inner, depth + 1);
    if (kind) return kind;
  }
  return undefined;
}
