/**
 * Where a .cpuprofile's time went, in three tables: self time by package or file (node_modules'
 * package, Node's own module, our file), self time by function, and inclusive time by function
 * (each sample counted once for every distinct function on its stack). Idle time is left out of
 * the totals; garbage collection and V8's own work are rows of their own.
 */
import type { CpuProfile } from './cpuProfiler.js';

export interface CostRow {
  name: string;
  ms: number;
  /** Share of the profile's busy time (all but idle). */
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byPlace: CostRow[];
  bySelf: CostRow[];
  byInclusive: CostRow[];
  /** What byInclusive counts. */
  inclusiveTitle: string;
}

/** A frame's place: a package of node_modules, Node's own module, a file of ours, or V8's pseudo-frame. */
export function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').replace(/\/.*$/, '');
  const ours = /\/((?:server|src|kit|bench)\/.*)$/.exec(url.replace(/^file:\/\//, ''));
  return ours ? ours[1]! : url;
}

function frameName(node: CpuProfile['nodes'][number]): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const place = placeOf(url, functionName);
  return url ? `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}` : functionName || place;
}

function rows(totals: Map<string, number>, busyMs: number, top: number): CostRow[] {
  return [...totals]
    .map(([name, ms]) => ({ name, ms, share: ms / busyMs }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

export function summarize(profile: CpuProfile, top = 30): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const place = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busyMs = 0;
  let idleMs = 0;
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    busyMs += ms;
    add(place, placeOf(node.callFrame.url, node.callFrame.functionName), ms);
    add(self, frameName(node), ms);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(frameName(byId.get(at)!));
    for (const name of onStack) add(inclusive, name, ms);
  });
  return {
    busyMs,
    idleMs,
    byPlace: rows(place, busyMs, top),
    bySelf: rows(self, busyMs, top),
    byInclusive: rows(inclusive, busyMs, top),
    inclusiveTitle: 'inclusive time by function (every function on the stack)',
  };
}

/** The summary as text; `perAppMinute`: the app-minutes the profile covered, to give each row's ms per app-minute. */
export function summaryText(s: ProfileSummary, perAppMinute?: number): string {
  const line = (r: CostRow) =>
    `${r.ms.toFixed(0).padStart(8)} ms ${(r.share * 100).toFixed(1).padStart(5)} %${perAppMinute ? ` ${(r.ms / perAppMinute).toFixed(3).padStart(8)} ms/app-min` : ''}  ${r.name}`;
  return [
    `busy ${s.busyMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms${perAppMinute ? ` over ${perAppMinute.toFixed(0)} app-minutes` : ''}`,
    '',
    'self time by place (package, Node module, our file):',
    ...s.byPlace.map(line),
    '',
    'self time by function:',
    ...s.bySelf.map(line),
    '',
    `${s.inclusiveTitle}:`,
    ...s.byInclusive.map(line),
  ].join('\n');
}
