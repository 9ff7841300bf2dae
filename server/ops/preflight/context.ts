/** Owns what one preflight run opens on the server's configuration (the database, the blob store, Apple's keys), each once, and closes it. */
import type { Config } from '../../config/index.js';
import { openDatabase } from '../../db/index.js';
import { createRepository, type Repository } from '../../db/repository.js';
import { openBlobStore } from '../../storage/index.js';
import type { AppleKeysAnswer, PreflightContext } from './finding.js';

/** Apple's keys are one small document: an answer slower or larger than this is itself the problem. */
const APPLE_KEYS_TIMEOUT_MS = 5_000;
const APPLE_KEYS_MAX_BYTES = 256 * 1024;

async function fetchAppleKeys(url: string): Promise<AppleKeysAnswer> {
  const sentAt = Date.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(APPLE_KEYS_TIMEOUT_MS) });
  const receivedAt = Date.now();
  const body = await res.text();
  if (body.length > APPLE_KEYS_MAX_BYTES) throw new Error(`the answer is larger than ${APPLE_KEYS_MAX_BYTES} bytes`);
  return { url, status: res.status, body, date: res.headers.get('date'), sentAt, receivedAt };
}

export function openPreflightContext(env: NodeJS.ProcessEnv, config: Config): PreflightContext & { close(): Promise<void> } {
  let repo: Promise<Repository> | undefined;
  let keys: Promise<AppleKeysAnswer> | undefined;
  const blobs = openBlobStore(config);
  return {
    env,
    config,
    repository() {
      repo ??= (async () => {
        const opened = createRepository(openDatabase(config), { convertOrder: config.convertOrder });
        try {
          await opened.migrate();
          return opened;
        } catch (err) {
          await opened.close().catch(() => {});
          throw err;
        }
      })();
      return repo;
    },
    blobs: () => blobs,
    appleKeys() {
      keys ??= fetchAppleKeys(config.auth.appleJwksUrl);
      return keys;
    },
    async close() {
      const opened = await repo?.catch(() => undefined);
      await opened?.close();
    },
  };
}
