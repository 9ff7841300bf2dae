/**
 * On-CPU profiles of the server by Linux perf (`perf record -g -p <pid>` over a window), read back
 * with `perf script` and summed as ./profileSummary.ts sums a V8 profile. Where V8's sampler counts
 * a thread that waits for a core as busy (on a shared machine a socket write to PostgreSQL wakes
 * its backend, which takes the writer's core, and V8 charges the wait to the write), perf counts
 * only the time the process ran, its kernel time included. So perf is the one to read for the
 * split between the kernel (by system call), the garbage collector, Node's C++ and JavaScript.
 * JavaScript frames are named from the map the server writes when started with
 * --perf-basic-prof-only-functions, which never forgets a name: where V8 frees or moves code and
 * puts other code at its address, perf may give a frame an older function's name (a geodesic
 * routine under a cookie hook). Read V8's profile for which JavaScript the time went to.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { placeOf, type CostRow, type ProfileSummary } from './profileSummary.js';

/** The V8 options that make a Node process's JavaScript frames readable to perf. */
export const PERF_NODE_OPTIONS = '--perf-basic-prof-only-functions --interpreted-frames-native-stack';

export const perfAvailable = (): boolean => spawnSync('perf', ['--version']).status === 0;

export class PerfRecording {
  private constructor(private readonly child: ChildProcess) {}

  /** Starts sampling process `pid` (all its threads, with call stacks) into `file`. */
  static start(pid: number, file: string, hz = 499): PerfRecording {
    return new PerfRecording(
      spawn('perf', ['record', '--no-buildid-cache', '-e', 'cpu-clock', '-F', String(hz), '-g', '-p', String(pid), '-o', file, '--quiet'], { stdio: 'ignore' }),
    );
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGINT');
    await exited;
  }
}

interface Frame {
  sym: string;
  dso: string;
}

/** The text `perf script` prints of a recording: per sample the thread's name and period, then its stack (address, symbol, object). */
export const perfScriptOf = (file: string): string =>
  spawnSync('perf', ['script', '-i', file, '-F', 'comm,period,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;

/** `perf script`'s samples: the sampled thread's name, the period (ns of CPU) and the stack, leaf first. */
function samplesOf(out: string): Array<{ thread: string; ns: number; stack: Frame[] }> {
  const samples: Array<{ thread: string; ns: number; stack: Frame[] }> = [];
  for (const block of out.split('\n\n')) {
    const [head, ...frames] = block.split('\n').filter((l) => l.trim());
    if (!head) continue;
    const m = /^\s*(.*?)\s+(\d+)\s*$/.exec(head);
    if (!m) continue;
    const stack = frames.map((l) => {
      const f = /^\s*\S+\s+(.*?)\s+\(([^)]*)\)\s*$/.exec(l);
      return { sym: f?.[1] ?? l.trim(), dso: f?.[2] ?? '' };
    });
    samples.push({ thread: m[1]!, ns: Number(m[2]), stack });
  }
  return samples;
}

/** A JavaScript frame's name as perf's map gives it ("JS:*fn file:line:col" or "LazyCompile:~fn file"), else undefined. */
function jsFrame(f: Frame): { fn: string; url: string } | undefined {
  if (!f.dso.includes('perf-') && !/^(JS|LazyCompile|Function|Builtin):/.test(f.sym)) return undefined;
  // V8 marks the name with how the function was compiled (*, ~, ^, +, ').
  const m = /^\w+:[*~^+']*(\S*)\s+(\S+?)(?::\d+)*$/.exec(f.sym);
  return m ? { fn: m[1] || '(anonymous)', url: m[2]! } : { fn: f.sym, url: '' };
}

const GC_FRAME = /Heap::|Scavenge|MarkCompact|Sweeper|ConcurrentMarking|MinorMark|GCTracer|MemoryAllocator/;

/** The kernel's part of a sample: the system call it is in (the frame just inside the syscall entry), or what else. */
function kernelPart(stack: Frame[]): string {
  const entry = stack.findIndex((f) => f.sym === 'do_syscall_64');
  if (entry > 0) return `kernel: ${stack[entry - 1]!.sym.replace(/^(?:__x64_sys_|__se_sys_|__do_sys_|ksys_|do_)/, '')}`;
  if (stack.some((f) => f.sym.includes('page_fault'))) return 'kernel: page faults';
  return 'kernel: interrupts and scheduling';
}

/**
 * Where a sample's time goes: the kernel (by system call), V8's garbage collector, or the place of
 * the innermost JavaScript frame (V8's builtins and Node's C++ count for the JavaScript that called
 * them: JSON.parse for its caller, an HMAC for jose), else the native object (the event loop itself).
 */
function placeOfSample(stack: Frame[], thread: string): { place: string; fn: string } {
  const leaf = stack[0];
  if (!leaf) return { place: '(unknown)', fn: '(unknown)' };
  const js = stack.map(jsFrame).find(Boolean);
  const caller = js ? `${js.fn} ${placeOf(js.url, js.fn)}` : `${leaf.sym} (${leaf.dso.replace(/.*\//, '')})`;
  if (leaf.dso.includes('kernel')) return { place: kernelPart(stack), fn: `${kernelPart(stack)} ← ${caller}` };
  if (/V8Worker|V8 Worker/.test(thread) || stack.some((f) => GC_FRAME.test(f.sym))) return { place: 'V8: garbage collection', fn: 'V8: garbage collection' };
  if (js) return { place: placeOf(js.url, js.fn), fn: caller };
  return { place: `native: ${leaf.dso.replace(/.*\//, '')}`, fn: caller };
}

/**
 * Whose work a sample was: the innermost package or file of ours on its stack. Node's own modules,
 * V8's builtins and the kernel count for the code that called them (a socket write for the pg
 * driver that sent a query, a JSON.parse for its caller); a stack with none is the event loop's own.
 */
function ownerOf(stack: Frame[], thread: string): string {
  // The collector's time is its own, not the allocation's that happened to start it.
  if (/V8Worker|V8 Worker/.test(thread) || stack.some((f) => GC_FRAME.test(f.sym))) return 'V8: garbage collection';
  for (const f of stack) {
    const js = jsFrame(f);
    const place = js && placeOf(js.url, js.fn);
    if (place && !place.startsWith('node:')) return place;
  }
  return placeOfSample(stack, thread).place;
}

/** A recording summed: time by place and by function (the innermost JavaScript frame's, or the kernel's call), and by whose work it was. */
export const perfSummary = (file: string, top = 30): ProfileSummary => summarizePerfScript(perfScriptOf(file), top);

/** `perf script`'s text (comm,period,sym,dso with call stacks) summed as perfSummary says. */
export function summarizePerfScript(script: string, top = 30): ProfileSummary {
  const place = new Map<string, number>();
  const self = new Map<string, number>();
  const owners = new Map<string, number>();
  let busyMs = 0;
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  for (const s of samplesOf(script)) {
    const ms = s.ns / 1e6;
    busyMs += ms;
    const where = placeOfSample(s.stack, s.thread);
    add(place, where.place, ms);
    add(self, where.fn, ms);
    add(owners, ownerOf(s.stack, s.thread), ms);
  }
  const rows = (m: Map<string, number>): CostRow[] =>
    [...m]
      .map(([name, ms]) => ({ name, ms, share: ms / busyMs }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  return {
    busyMs,
    idleMs: 0,
    byPlace: rows(place),
    bySelf: rows(self),
    byInclusive: rows(owners),
    inclusiveTitle: 'time by whose work it was (the innermost package or file of ours on the stack; Node, V8 and the kernel count for their caller)',
  };
}
