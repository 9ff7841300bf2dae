/**
 * The one way in for a note, whichever way its bytes come: whole in one PUT (./whole.ts), or as a
 * resumable upload created by that PUT and continued by PATCH (./resumable/). Both pass the same
 * checks (./checks.ts), store bytes the same way (./audio.ts) and commit the same way
 * (./commit.ts); every refusal they answer with is ../http/refusals.ts's. The routes call this.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { NoteReceipt } from '../../contract/api.js';
import { createUploadService, type UploadService } from './resumable/service.js';
import { receiveWhole, type IntakeDeps, type WholeNote } from './whole.js';

export type { IntakeDeps, WholeNote };

export interface Intake {
  /** A whole note in one PUT; `log` is the request's, so its lines carry the request id. */
  receive(note: WholeNote, log?: FastifyBaseLogger): Promise<NoteReceipt>;
  /** Resumable uploads; undefined when RESUMABLE_UPLOADS=off (a creation is then a whole PUT). */
  uploads?: UploadService;
}

export function createIntake(deps: IntakeDeps, resumable?: { expiryMs: number }): Intake {
  return {
    receive: (note, log = deps.log) => receiveWhole({ ...deps, log }, note),
    uploads: resumable && createUploadService({ ...deps, ...resumable }),
  };
}
