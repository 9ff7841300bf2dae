/**
 * The error types routes throw for an expected failure: ApiProblem (status, machine code, a
 * sentence for a person) and UploadProblem (one of the resumable-upload draft's problem types).
 * Both take only a code of the catalogue (contract/refusals.ts) with one of its statuses, so an
 * unknown code or a wrong status does not compile. The recorder's refusals are ./refusals.ts's;
 * the runner app's own not-founds are here.
 */
import type { ApiError } from '../../contract/api.js';
import type { RefusalCode, RefusalStatus } from '../../contract/refusals.js';
import { UPLOAD_PROBLEM_BASE } from '../../contract/uploadProtocol.js';

export class ApiProblem<Code extends RefusalCode = RefusalCode> extends Error {
  constructor(
    readonly statusCode: RefusalStatus<Code>,
    readonly code: Code,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }

  /** The answer's body: `{ error, message }`, the one shape every client reads (contract/refusalsReader.ts). */
  body(): ApiError & { [member: string]: unknown } {
    return { error: this.code, message: this.message };
  }
}

/** A problem the draft defines: answered as problem+json (RFC 9457) with its type URI and extension members. */
export class UploadProblem<Code extends RefusalCode = RefusalCode> extends ApiProblem<Code> {
  constructor(
    statusCode: RefusalStatus<Code>,
    type: Code,
    readonly title: string,
    message: string,
    readonly members: Record<string, number> = {},
    headers: Record<string, string> = {},
  ) {
    super(statusCode, type, message, headers);
    this.name = 'UploadProblem';
  }

  /** RFC 9457 problem details, plus our { error, message } so the recorder reads it like any API error. */
  override body() {
    return { type: UPLOAD_PROBLEM_BASE + this.code, title: this.title, ...this.members, error: this.code, message: this.message };
  }
}

export const entryNotFound = () => new ApiProblem(404, 'entry_not_found', 'This race entry was not found on your account.');
export const shareNotFound = () => new ApiProblem(404, 'share_not_found', 'This share was not found on your account.');
/** The home screen's list: the link is not on this phone's list, or the request carried no device cookie. */
export const deviceLinkNotFound = () => new ApiProblem(404, 'device_link_not_found', "This runner is not on this phone's list.");
/** A keepsake page's token that names no live share: removed, or copied incompletely. */
export const keepsakeNotFound = () =>
  new ApiProblem(404, 'share_not_found', "These notes aren't shared any more, or the link is incomplete. Ask the runner to share them again.");
/** Outside /api: a request for something that is not a page (an asset, a JSON client). */
export const siteNotFound = (what = 'this address') => new ApiProblem(404, 'not_found', `Nothing is here: ${what}`);
