/**
 * The preflight's free space line: what /readyz watches (server/ops/free-space.ts), DATA_DIR and the
 * temp folder each against READY_MIN_FREE_MB, so a disk already near the line is found before the
 * race and not by a balancer turning the server away in the middle of it.
 */
import { freeBytes, lowOnSpace } from '../free-space.js';
import { fail, ok, warn, type PreflightCheck } from './finding.js';

const MIB = 1024 * 1024;

const size = (bytes: number) => (bytes >= 1024 * MIB ? `${(bytes / 1024 / MIB).toFixed(1)} GiB` : `${Math.floor(bytes / MIB)} MiB`);

export const diskCheck: PreflightCheck = {
  name: 'free space',
  async run({ config }) {
    const dirs = [...new Set([config.dataDir, config.tempDir])];
    const free = await Promise.all(dirs.map(freeBytes));
    // A folder not there holds nothing (DATA_DIR with PostgreSQL and S3).
    const listing = dirs.flatMap((dir, i) => (free[i] === undefined ? [] : [`${size(free[i]!)} free under ${dir}`])).join(', ');
    if (config.readyMinFreeBytes === 0) {
      return warn(
        `not watched (READY_MIN_FREE_MB=0): ${listing}; /readyz keeps this server in the balancer until its disk is full and notes are refused.`,
        'leave READY_MIN_FREE_MB unset (room for the uploads and conversions a server may have in hand) or set it in MiB.',
      );
    }
    const low = await lowOnSpace({ dirs, minFreeBytes: config.readyMinFreeBytes });
    if (low) {
      return fail(
        `${low}: /readyz answers 503 and a balancer sends this server no notes.`,
        'free space there or give it a larger disk (DATA_DIR, TMPDIR); READY_MIN_FREE_MB is the line, lower it only knowing what a crowd sends at once.',
      );
    }
    return ok(`${listing}; READY_MIN_FREE_MB wants ${Math.ceil(config.readyMinFreeBytes / MIB)} MiB.`);
  },
};
