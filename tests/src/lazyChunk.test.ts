import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkLoadError, failedUrl, loadChunk } from '../../src/lazyChunk';

const never = () => new Promise<never>(() => {});

describe('loadChunk', () => {
  afterEach(() => vi.useRealTimers());

  it('should resolve with the module when the chunk loads', async () => {
    await expect(loadChunk('recorder', async () => ({ default: 42 }))).resolves.toEqual({ default: 42 });
  });

  it('should fail with a timeout ChunkLoadError after 120 seconds', async () => {
    vi.useFakeTimers();
    const loading = loadChunk('recorder', never);
    const outcome = loading.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(119_999);
    await vi.advanceTimersByTimeAsync(1);
    const error = (await outcome) as ChunkLoadError;
    expect(error).toBeInstanceOf(ChunkLoadError);
    expect(error.name).toBe('ChunkLoadError');
    expect(error.type).toBe('timeout');
    expect(error.message).toBe('Loading chunk recorder failed.\n(timeout: recorder)');
  });

  it('should name the failed file and call it missing when the server says 404', async () => {
    const url = 'http://localhost:8080/assets/recorder-abc123.js';
    const error = await loadChunk('recorder', () => Promise.reject(new TypeError(`Failed to fetch dynamically imported module: ${url}`)), {
      classify: async () => 'missing',
    }).catch((e: unknown) => e as ChunkLoadError);
    expect(error.message).toBe(`Loading chunk recorder failed.\n(missing: ${url})`);
  });

  it('should call it an error when the file could not be fetched', async () => {
    const error = await loadChunk('recorder', () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: /assets/recorder-x.js')), {
      classify: async () => 'error',
    }).catch((e: unknown) => e as ChunkLoadError);
    expect(error.type).toBe('error');
    expect(error.request).toBe('/assets/recorder-x.js');
  });

  it('should not turn a late success into a result after it timed out', async () => {
    vi.useFakeTimers();
    let finish: (value: string) => void = () => {};
    const loading = loadChunk('recorder', () => new Promise<string>((resolve) => (finish = resolve)), { timeoutMs: 10 });
    const outcome = loading.then(
      () => 'resolved',
      (e: ChunkLoadError) => e.type,
    );
    await vi.advanceTimersByTimeAsync(10);
    finish('late');
    expect(await outcome).toBe('timeout');
  });
});

describe('failedUrl', () => {
  it("should find the module URL in Chromium's and Vite's messages", () => {
    expect(failedUrl(new TypeError('Failed to fetch dynamically imported module: https://x.test/assets/a.js'))).toBe('https://x.test/assets/a.js');
    expect(failedUrl(new Error('Unable to preload CSS for /assets/recorder-1.css'))).toBe('/assets/recorder-1.css');
    expect(failedUrl(new Error('nothing here'))).toBeUndefined();
  });
});
