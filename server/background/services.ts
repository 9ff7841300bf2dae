/**
 * Owns when a server's background work runs: each piece (a loop, ./loop.ts, or anything that starts
 * and stops) is added by name in the order it starts, is started with the others once the app is
 * ready, and stopped in reverse order on close, each stop waiting for its work in flight before the
 * next begins. What starts first (sweeps) then stops last, after the work that feeds on them.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface Service {
  start(): void;
  /** Resolves once its work in flight has ended. */
  stop(): Promise<void>;
}

export interface Background {
  /** Adds a piece of work; it starts after those added before it and stops before them. */
  add(name: string, service: Service): void;
  /** Starts every piece, in the order added (once; later calls do nothing). */
  start(): void;
  /** Stops every piece started, in reverse order, each after the one added after it has stopped. */
  stop(): Promise<void>;
  /** The pieces' names, in the order they start. */
  names(): string[];
}

export function createBackground(log: FastifyBaseLogger): Background {
  const services: Array<{ name: string; service: Service }> = [];
  let started = 0;
  return {
    add(name, service) {
      services.push({ name, service });
    },
    start() {
      for (; started < services.length; started++) {
        const { name, service } = services[started]!;
        service.start();
        log.debug({ work: name }, 'background work started');
      }
    },
    async stop() {
      while (started > 0) {
        const { name, service } = services[--started]!;
        // One piece that cannot stop cleanly must not keep the others (or the database) from closing.
        await service.stop().catch((err: unknown) => log.error({ err, work: name }, 'background work did not stop cleanly'));
      }
    },
    names: () => services.map((s) => s.name),
  };
}
