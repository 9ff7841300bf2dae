/** The one error type routes throw for an expected failure (status, machine code, a sentence for a person), and the shared ones. */
export class ApiProblem extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export const linkNotFound = () =>
  new ApiProblem(404, 'link_not_found', "This link doesn't work any more. Ask the runner for a new one.");
/** The recorder makes note ids itself, so a malformed one is a broken request, not a missing note. */
export const invalidNoteId = () => new ApiProblem(400, 'invalid_note_id', 'The note id must be a UUID made by the recorder.');
export const noteNotFound = () => new ApiProblem(404, 'note_not_found', 'This note was not found.');
export const entryNotFound = () => new ApiProblem(404, 'entry_not_found', 'This race entry was not found on your account.');
export const shareNotFound = () => new ApiProblem(404, 'share_not_found', 'This share was not found on your account.');
/** A keepsake page's token that names no live share: removed, or copied incompletely. */
export const keepsakeNotFound = () =>
  new ApiProblem(404, 'share_not_found', "These notes aren't shared any more, or the link is incomplete. Ask the runner to share them again.");
