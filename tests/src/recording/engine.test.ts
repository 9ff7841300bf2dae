import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRecordingEngine, type RecordingEngine, type RecordingState } from '../../../src/recording/engine.js';
import { MAX_RECORDING_BYTES } from '../../../src/recording/formats.js';
import { MAX_RECORDING_MS } from '../../../contract/limits.js';
import { discardRecording, listDrafts, readRecording } from '../../../src/outbox/index.js';
import { TOKEN, freshDb } from '../outbox/helpers.js';

/** A MediaRecorder that hands out the chunks a test gives it, as a browser does: each as a dataavailable event, the last one before stop. */
class FakeRecorder {
  static made: FakeRecorder[] = [];
  static isTypeSupported = (type: string) => type === 'audio/webm;codecs=opus';
  static refuse: Error | undefined;
  state: 'inactive' | 'recording' = 'inactive';
  timeslice?: number;
  flushes = 0;
  ondataavailable: ((event: { data: Blob }) => void) | null = null;
  onstart: (() => void) | null = null;
  onstop: (() => void) | null = null;
  constructor(
    readonly stream: unknown,
    readonly options: { mimeType?: string; audioBitsPerSecond?: number },
  ) {
    if (FakeRecorder.refuse) throw FakeRecorder.refuse;
    FakeRecorder.made.push(this);
  }
  get mimeType() {
    return this.options.mimeType ?? '';
  }
  start(timeslice: number) {
    this.state = 'recording';
    this.timeslice = timeslice;
    queueMicrotask(() => this.onstart?.());
  }
  emit(...values: number[]) {
    this.ondataavailable?.({ data: new Blob([new Uint8Array(values)]) });
  }
  requestData() {
    this.flushes++;
  }
  stop() {
    this.state = 'inactive';
    this.emit(0xff);
    this.onstop?.();
  }
}

/** A microphone whose tracks say whether they were stopped. */
function microphone() {
  const tracks = [{ stopped: false, stop: () => void (tracks[0]!.stopped = true) }];
  const getUserMedia = vi.fn(async () => ({ getTracks: () => tracks }));
  return { tracks, getUserMedia };
}

let mic: ReturnType<typeof microphone>;
let visibility: { state: string; listeners: Array<() => void> };

beforeEach(async () => {
  await freshDb();
  FakeRecorder.made = [];
  FakeRecorder.refuse = undefined;
  mic = microphone();
  visibility = { state: 'visible', listeners: [] };
  vi.stubGlobal('isSecureContext', true);
  vi.stubGlobal('MediaRecorder', FakeRecorder);
  vi.stubGlobal('navigator', { mediaDevices: { getUserMedia: mic.getUserMedia } });
  vi.stubGlobal('document', {
    get visibilityState() {
      return visibility.state;
    },
    addEventListener: (type: string, listener: () => void) => type === 'visibilitychange' && visibility.listeners.push(listener),
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Resolves once the engine's state satisfies `done`. */
function until(engine: RecordingEngine, done: (state: RecordingState) => boolean): Promise<RecordingState> {
  return new Promise((resolve) => {
    const check = () => {
      if (!done(engine.snapshot())) return;
      unsubscribe();
      resolve(engine.snapshot());
    };
    const unsubscribe = engine.subscribe(check);
    check();
  });
}

describe('the recording engine', () => {
  it('should keep each chunk in the outbox as it arrives, and say stopped once every one is written', async () => {
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    const recording = engine.snapshot();
    expect(recording).toMatchObject({ phase: 'recording' });
    const [recorder] = FakeRecorder.made;
    expect(recorder!.options).toEqual({ mimeType: 'audio/webm;codecs=opus', audioBitsPerSecond: 24_000 });
    expect(recorder!.timeslice).toBe(1000);

    recorder!.emit(1, 2);
    recorder!.emit(3);
    const id = recording.phase === 'recording' ? recording.id : '';
    await vi.waitFor(async () => expect((await readRecording(id)).chunks).toBe(2));
    engine.stop();
    const stopped = await until(engine, (s) => s.phase === 'stopped');
    expect(stopped).toMatchObject({ phase: 'stopped', id });
    const { draft, data } = await readRecording(id);
    expect([...new Uint8Array(data)]).toEqual([1, 2, 3, 0xff]);
    expect(draft).toMatchObject({ token: TOKEN, contentType: 'audio/webm;codecs=opus' });
    expect(mic.tracks.every((t) => t.stopped)).toBe(true);

    engine.release();
    expect(engine.snapshot()).toEqual({ phase: 'idle' });
  });

  it('should ask for the microphone once when both screens pass on the same tap', async () => {
    const engine = createRecordingEngine();
    await Promise.all([engine.start(TOKEN), engine.start(TOKEN)]);
    await engine.start(TOKEN);
    expect(mic.getUserMedia).toHaveBeenCalledTimes(1);
    expect(FakeRecorder.made).toHaveLength(1);
    expect(await listDrafts(TOKEN)).toHaveLength(1);
  });

  it('should stop by itself at one minute', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    vi.advanceTimersByTime(MAX_RECORDING_MS - 1);
    expect(FakeRecorder.made[0]!.state).toBe('recording');
    vi.advanceTimersByTime(1);
    expect(FakeRecorder.made[0]!.state).toBe('inactive');
  });

  it('should stop once the chunks reach the size cap, the bitrate being only a hint', async () => {
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    const recorder = FakeRecorder.made[0]!;
    recorder.ondataavailable?.({ data: new Blob([new Uint8Array(MAX_RECORDING_BYTES - 1)]) });
    expect(recorder.state).toBe('recording');
    recorder.emit(1);
    expect(recorder.state).toBe('inactive');
  });

  it('should flush what it heard when the page is hidden', async () => {
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    visibility.state = 'hidden';
    for (const listener of visibility.listeners) listener();
    expect(FakeRecorder.made[0]!.flushes).toBe(1);
  });

  it('should say the microphone was refused, with its error, and start again from a later tap', async () => {
    mic.getUserMedia.mockRejectedValueOnce(new DOMException('no', 'NotAllowedError'));
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    expect(engine.snapshot()).toEqual({ phase: 'blocked', blocked: { kind: 'microphone', error: 'NotAllowedError' } });
    await engine.start(TOKEN);
    expect(engine.snapshot()).toMatchObject({ phase: 'recording' });
  });

  it('should let the microphone go when MediaRecorder refuses to start', async () => {
    FakeRecorder.refuse = new DOMException('no', 'NotSupportedError');
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    expect(engine.snapshot()).toEqual({ phase: 'blocked', blocked: { kind: 'recorder', error: 'NotSupportedError' } });
    expect(mic.tracks.every((t) => t.stopped)).toBe(true);
  });

  it('should not ask for the microphone where the browser cannot record', async () => {
    vi.stubGlobal('MediaRecorder', undefined);
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    expect(engine.snapshot()).toEqual({ phase: 'blocked', blocked: { kind: 'unavailable', reason: 'noRecorder' } });
    expect(mic.getUserMedia).not.toHaveBeenCalled();
  });

  it('should stop and say part was lost when a chunk cannot be written, keeping what was', async () => {
    const engine = createRecordingEngine();
    await engine.start(TOKEN);
    const state = engine.snapshot();
    const id = state.phase === 'recording' ? state.id : '';
    await discardRecording(id);
    FakeRecorder.made[0]!.emit(1);
    expect(await until(engine, (s) => s.phase === 'stopped')).toMatchObject({ phase: 'stopped', trouble: 'partLost' });
    expect(mic.tracks.every((t) => t.stopped)).toBe(true);
    engine.release();
    await engine.start(TOKEN);
    expect(engine.snapshot().trouble).toBeUndefined();
  });
});
