/**
 * The mark a route carries in its Fastify `config` when its requests bring a note's bytes (a
 * note's PUT, an upload's PATCH), and the one way to read it. What applies to note uploads (the
 * per-address cap on open uploads, the drain on stop, the note metrics) reads the mark, never the
 * route's method or path.
 */
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Requests to this route carry a note's bytes. */
    noteUpload?: boolean;
  }
}

/** The `config` of a route that carries a note's bytes. */
export const NOTE_UPLOAD = { noteUpload: true } as const;

export const isNoteUpload = (req: FastifyRequest): boolean => req.routeOptions.config?.noteUpload === true;
