/**
 * Runs the server: builds the app, listens, and stops gracefully on SIGINT/SIGTERM: new uploads
 * get 503 + Retry-After, uploads in flight finish (up to SHUTDOWN_GRACE_MS), the conversion worker
 * finishes or hands back its job, then the process exits. `npm start` (./index.ts) runs it on the
 * real clock; the demo (demo/serve.ts) gives it a compressed one.
 */
import { buildApp, type AppParts } from './app.js';
import type { Config } from './config/index.js';

/**
 * Once the uploads are done, what still runs (an audio download, which resumes by Range) has this
 * long before its connection is closed. Node stops timing out unfinished headers once the server
 * closes: a connection that never sent a whole request would otherwise hold the stop up for
 * IDLE_TIMEOUT_MS (60 s), one stranger's socket enough to keep a restart waiting.
 */
const CLOSE_WAIT_MS = 5_000;

export async function serve(config: Config, parts?: Partial<AppParts>): Promise<void> {
  const app = await buildApp(config, parts);

  async function shutDown(signal: string): Promise<void> {
    app.log.info({ signal }, 'shutting down: refusing new uploads, finishing the ones in flight');
    // Held sync requests answer at once with what is there; the apps ask again (another server).
    app.noteChanges.stop();
    const unfinished = await app.drain.start(config.shutdownGraceMs);
    if (unfinished > 0) {
      // Their senders got no answer, so the recorder keeps those notes and sends them again.
      app.log.warn({ uploads: unfinished, graceMs: config.shutdownGraceMs }, 'uploads still running at the grace limit are cut off');
      app.server.closeAllConnections();
    }
    const cutOff = setTimeout(() => app.server.closeAllConnections(), Math.min(CLOSE_WAIT_MS, config.shutdownGraceMs));
    await app.close();
    clearTimeout(cutOff);
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      shutDown(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          app.log.error(err, 'error while shutting down');
          process.exit(1);
        },
      );
    });
  }

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    app.log.error(err, 'could not start');
    process.exit(1);
  }
}
