import { describe, expect, it } from 'vitest';
import type { CpuProfile } from '../../../bench/load/cpuProfiler.js';
import { summarizePerfScript } from '../../../bench/load/perfProfile.js';
import { placeOf, summarize } from '../../../bench/load/profileSummary.js';

const REPO = '/work/repo';

describe('where a profile says the time went', () => {
  it("should name a frame's place: a package, Node's module, our file, or V8's pseudo-frame", () => {
    expect(placeOf(`file://${REPO}/node_modules/pg-protocol/dist/parser.js`, 'parse')).toBe('pg-protocol');
    expect(placeOf(`${REPO}/node_modules/@fastify/compress/index.js`, 'x')).toBe('@fastify/compress');
    expect(placeOf('node:internal/streams/writable', 'clearBuffer')).toBe('node:streams');
    expect(placeOf(`file://${REPO}/server/sync/note-changes.ts`, 'hold')).toBe('server/sync/note-changes.ts');
    expect(placeOf('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it("should sum a V8 profile's samples by place, by function and inclusively, idle left out", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 4] },
        { id: 2, callFrame: frame('handler', `${REPO}/server/routes/runner/progress.ts`), children: [3] },
        { id: 3, callFrame: frame('parse', `${REPO}/node_modules/pg-protocol/dist/parser.js`) },
        { id: 4, callFrame: frame('(idle)', '') },
      ],
      startTime: 0,
      endTime: 10_000,
      // Each sample's time is the delta after it (µs): handler 1 ms, parse 3 ms, idle 6 ms.
      samples: [2, 3, 3, 3, 4],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 6000],
    };
    const s = summarize(profile);
    expect(s.busyMs).toBe(4);
    expect(s.idleMs).toBe(6);
    expect(s.byPlace).toEqual([
      { name: 'pg-protocol', ms: 3, share: 0.75 },
      { name: 'server/routes/runner/progress.ts', ms: 1, share: 0.25 },
    ]);
    expect(s.byInclusive.find((r) => r.name.startsWith('handler'))?.ms).toBe(4);
  });

  it("should sum perf's samples by the kernel's call, V8's collector, and the innermost JavaScript frame's place", () => {
    const map = '(/tmp/perf-7.map)';
    const node = '(/usr/bin/node)';
    const kernel = '([kernel.kallsyms])';
    const script = [
      'MainThread 2000000',
      `\tffff1 tcp_sendmsg ${kernel}`,
      `\tffff2 do_writev ${kernel}`,
      `\tffff3 do_syscall_64 ${kernel}`,
      `\t7f01 JS:*writevGeneric node:internal/stream_base_commons:121:23 ${map}`,
      `\t7f02 JS:^submit ${REPO}/node_modules/pg/lib/query.js:152:9 ${map}`,
      `\t7f03 JS:*changesSince ${REPO}/server/db/note-store.ts:119:5 ${map}`,
      '',
      'MainThread 1000000',
      `\t1692 Builtins_KeyedStoreIC ${node}`,
      `\t7f04 JS:+'parse ${REPO}/node_modules/pg-protocol/dist/parser.js:26:5 ${map}`,
      '',
      'V8Worker 1000000',
      `\t2001 v8::internal::Scavenger::ScavengeObject ${node}`,
      '',
    ].join('\n');
    const s = summarizePerfScript(script);
    expect(s.busyMs).toBe(4);
    expect(s.byPlace).toEqual([
      { name: 'kernel: writev', ms: 2, share: 0.5 },
      { name: 'pg-protocol', ms: 1, share: 0.25 },
      { name: 'V8: garbage collection', ms: 1, share: 0.25 },
    ]);
    expect(s.bySelf[0]?.name).toBe('kernel: writev ← writevGeneric node:stream_base_commons');
    // The socket write is the pg driver's work; the collector's and the parser's are their own.
    expect(s.byInclusive).toEqual([
      { name: 'pg', ms: 2, share: 0.5 },
      { name: 'pg-protocol', ms: 1, share: 0.25 },
      { name: 'V8: garbage collection', ms: 1, share: 0.25 },
    ]);
  });
});
