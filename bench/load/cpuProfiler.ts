/**
 * Samples a running server's CPU through its inspector (the server started with
 * NODE_OPTIONS=--inspect=127.0.0.1:<port>): start before a window, stop after it, and the window's
 * .cpuprofile written where Chrome's DevTools or ./profileSummary.ts read it. Only a window is
 * profiled, not the server's start or the apps' sign-ins; the sampling costs the server a few per
 * cent while it runs, so a run that profiles is not the run whose figures are reported.
 */
import { writeFile } from 'node:fs/promises';

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class CpuProfiler {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const m = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id!);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    });
  }

  /** Connects to the inspector listening on 127.0.0.1:`port`. */
  static async connect(port: number, samplingMicros = 1000): Promise<CpuProfiler> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
    const socket = new WebSocket(target!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', () => reject(new Error('could not reach the server inspector')), { once: true });
    });
    const profiler = new CpuProfiler(socket);
    await profiler.call('Profiler.enable');
    await profiler.call('Profiler.setSamplingInterval', { interval: samplingMicros });
    return profiler;
  }

  private call(method: string, params: object = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  async start(): Promise<void> {
    await this.call('Profiler.start');
  }

  /** Stops sampling and writes the profile to `file`; answers the profile. */
  async stop(file: string): Promise<CpuProfile> {
    const { profile } = (await this.call('Profiler.stop')) as { profile: CpuProfile };
    await writeFile(file, JSON.stringify(profile));
    return profile;
  }

  close(): void {
    this.socket.close();
  }
}

/** The parts of V8's profile format (Chrome DevTools protocol, Profiler.Profile) the summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}
