/**
 * Loads an on-demand piece of the app as the client asked, like webpack's chunk
 * loader: it gives up after 120 s and fails with a ChunkLoadError whose message reads
 * 'Loading chunk <id> failed.\n(<type>: <src>)', type being missing, error or timeout.
 */
import { CHUNK_LOAD_TIMEOUT_MS } from './config.js';

export type ChunkErrorType = 'missing' | 'error' | 'timeout';

export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
  constructor(
    readonly chunkId: string,
    readonly type: ChunkErrorType,
    readonly request: string,
  ) {
    super(`Loading chunk ${chunkId} failed.\n(${type}: ${request})`);
  }
}

export interface LoadChunkOptions {
  timeoutMs?: number;
  /** Tells a file that is not on the server (missing) from one that could not be fetched (error). */
  classify?: (url: string) => Promise<ChunkErrorType>;
}

/** Browsers name the module that failed in the error's message; Vite's preloader names the CSS. */
export function failedUrl(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  return message.match(/(https?:\/\/[^\s'"]+|\/[^\s'"]+\.(?:js|css))/)?.[1];
}

async function classifyByStatus(url: string): Promise<ChunkErrorType> {
  try {
    const response = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    return response.status === 404 || response.status === 410 ? 'missing' : 'error';
  } catch {
    return 'error';
  }
}

export function loadChunk<T>(chunkId: string, load: () => Promise<T>, options: LoadChunkOptions = {}): Promise<T> {
  const { timeoutMs = CHUNK_LOAD_TIMEOUT_MS, classify = classifyByStatus } = options;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new ChunkLoadError(chunkId, 'timeout', chunkId));
    }, timeoutMs);
    load().then(
      (module) => {
        clearTimeout(timer);
        if (!settled) resolve(module);
      },
      async (error: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        const url = failedUrl(error);
        const type = url ? await classify(url) : 'error';
        reject(new ChunkLoadError(chunkId, type, url ?? chunkId));
      },
    );
  });
}
