/**
 * The order vitest starts test files in. With its cache (node_modules/.vite/vitest) it starts the
 * longest first; a fresh clone, as in CI, has none, and it starts the largest files first: in one
 * such run the reference app's race (78 s, mostly waiting on race time) started last and ran alone
 * for its last 78 s. These files mostly wait, on clocks, slow clients or child servers: started
 * first, their waits overlap the CPU-bound rest (vitest 391 s on a fresh clone with this order).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first, as measured in a full run (seconds on this 2-core machine). */
const LONG_WAITS = [
  'tests/server/intake/slow-clients.test.ts', // 82
  'tests/bench/load/raceday.test.ts', // 78
  'tests/server/conversion/lease-takeover.test.ts', // 69
  'tests/server/intake/crowd-limits.test.ts', // 49
  'tests/server/intake/resumable/resumable-crash.test.ts', // 45
  'tests/server/audio/converter.test.ts', // 40
  'tests/server/sync/held-requests.test.ts', // 39
  'tests/server/ops/graceful-stop.test.ts', // 38
  'tests/server/ops/two-servers.test.ts', // 31
];

export default class LongWaitsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONG_WAITS.findIndex((suffix) => file.moduleId.endsWith(suffix));
      return at === -1 ? LONG_WAITS.length : at;
    };
    // Array sort is stable: the rest keep vitest's own order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
