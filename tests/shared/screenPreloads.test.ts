/**
 * The shells' inline script that starts the screen's downloads after the first paint, run as the
 * page runs it, against a stand-in document: when it moves the preloads into <head>, and that it
 * does so once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SCREEN_PRELOADS_EVENT, SCREEN_PRELOADS_ID, SCREEN_PRELOADS_SCRIPT, SCREEN_PRELOADS_WAIT_MS } from '../../src/shared/screenPreloads';

type PaintCallback = (list: { getEntriesByName(name: string): unknown[] }, observer: { disconnect(): void }) => void;

class FakeDocument extends EventTarget {
  visibilityState: 'visible' | 'hidden' = 'visible';
  readonly moved: unknown[] = [];
  readonly head = { append: (content: unknown) => void this.moved.push(content) };
  readonly template = { content: { links: 3 }, removed: false, remove: () => void (this.template.removed = true) };
  hasTemplate = true;
  getElementById(id: string) {
    return id === SCREEN_PRELOADS_ID && this.hasTemplate && !this.template.removed ? this.template : null;
  }
}

/** A PerformanceObserver that reports paint entries when told to. */
function fakePaintTiming(supported: string[]) {
  const observers: Array<{ callback: PaintCallback; disconnected: boolean }> = [];
  class Observer {
    static supportedEntryTypes = supported;
    private readonly entry: { callback: PaintCallback; disconnected: boolean };
    constructor(callback: PaintCallback) {
      this.entry = { callback, disconnected: false };
      observers.push(this.entry);
    }
    observe() {}
    disconnect() {
      this.entry.disconnected = true;
    }
  }
  const report = (name: string) => {
    for (const o of observers.filter((o) => !o.disconnected)) {
      o.callback({ getEntriesByName: (n) => (n === name ? [{ name }] : []) }, { disconnect: () => void (o.disconnected = true) });
    }
  };
  return { Observer, report, observers };
}

function runScript(document: FakeDocument, Observer: unknown, raf: (cb: () => void) => void = () => {}) {
  const started: Event[] = [];
  document.addEventListener(SCREEN_PRELOADS_EVENT, (e) => void started.push(e));
  new Function('document', 'self', 'requestAnimationFrame', SCREEN_PRELOADS_SCRIPT)(document, { PerformanceObserver: Observer }, raf);
  return started;
}

describe('the shell script that starts the screen downloads', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('should wait for the first contentful paint, then move the preloads into head, drop the template and say so, once', () => {
    const document = new FakeDocument();
    const paint = fakePaintTiming(['paint', 'resource']);
    const started = runScript(document, paint.Observer);

    paint.report('first-paint');
    expect(document.moved).toEqual([]);
    paint.report('first-contentful-paint');
    expect(document.moved).toEqual([document.template.content]);
    expect(document.template.removed).toBe(true);
    expect(started).toHaveLength(1);

    document.dispatchEvent(new Event('visibilitychange'));
    vi.advanceTimersByTime(SCREEN_PRELOADS_WAIT_MS * 2);
    expect(document.moved).toHaveLength(1);
    expect(started).toHaveLength(1);
    expect(paint.observers.every((o) => o.disconnected)).toBe(true);
  });

  it('should go on at once in a hidden page, which paints nothing', () => {
    const document = new FakeDocument();
    document.visibilityState = 'hidden';
    const started = runScript(document, fakePaintTiming(['paint']).Observer);
    expect(document.moved).toHaveLength(1);
    expect(started).toHaveLength(1);
  });

  it('should go on when the page is hidden before it paints', () => {
    const document = new FakeDocument();
    const started = runScript(document, fakePaintTiming(['paint']).Observer);
    expect(started).toHaveLength(0);
    document.visibilityState = 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
    expect(started).toHaveLength(1);
  });

  it('should not wait longer than its limit for a paint the browser does not report', () => {
    const document = new FakeDocument();
    const started = runScript(document, fakePaintTiming(['paint']).Observer);
    vi.advanceTimersByTime(SCREEN_PRELOADS_WAIT_MS - 1);
    expect(started).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(started).toHaveLength(1);
  });

  it('should use the next frame where Paint Timing is missing', () => {
    for (const Observer of [fakePaintTiming(['resource']).Observer, undefined]) {
      const document = new FakeDocument();
      const frames: Array<() => void> = [];
      const started = runScript(document, Observer, (cb) => void frames.push(cb));
      expect(frames).toHaveLength(1);
      frames[0]!();
      expect(started).toHaveLength(0);
      vi.advanceTimersByTime(0);
      expect(started).toHaveLength(1);
    }
  });

  it('should do nothing on a page without the template', () => {
    const document = new FakeDocument();
    document.hasTemplate = false;
    const started = runScript(document, fakePaintTiming(['paint']).Observer);
    vi.advanceTimersByTime(SCREEN_PRELOADS_WAIT_MS * 2);
    expect(started).toHaveLength(0);
    expect(document.moved).toHaveLength(0);
  });
});
