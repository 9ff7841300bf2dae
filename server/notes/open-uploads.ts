/**
 * Owns the count of uploads each address has open on this server. Open connections belong to
 * one process, so this count lives in memory; the rate of uploads is counted in the database.
 */
export interface OpenUploads {
  /** Takes a slot for the address; false when it already holds `max`. `release` must follow a true. */
  take(address: string): boolean;
  release(address: string): void;
  /** Open uploads of one address, for tests and metrics. */
  count(address: string): number;
}

export function createOpenUploads(max: number): OpenUploads {
  const open = new Map<string, number>();
  return {
    take(address) {
      const n = open.get(address) ?? 0;
      if (n >= max) return false;
      open.set(address, n + 1);
      return true;
    },
    release(address) {
      const n = (open.get(address) ?? 0) - 1;
      if (n > 0) open.set(address, n);
      else open.delete(address);
    },
    count: (address) => open.get(address) ?? 0,
  };
}
