/**
 * The runner app's refusals of its session, its entries, its shares and its notes' audio links:
 * status, code and sentence, written once here beside the recorder's (./refusals.ts). Keyed by
 * code; the app words them itself by code (docs/app-contract.md), so they have no page translations.
 */
import { MAX_RUNNER_NAME_LENGTH } from '../../contract/limits.js';
import { ApiProblem } from './problem.js';

export const sessionRefusal = {
  not_signed_in: () => new ApiProblem(401, 'not_signed_in', 'Please sign in again.', { 'www-authenticate': 'Bearer' }),
  sign_in_refused: () => new ApiProblem(401, 'sign_in_refused', 'Sign in with Apple could not be confirmed. Please try signing in again.'),
  apple_unavailable: () => new ApiProblem(503, 'apple_unavailable', "We couldn't reach Apple to confirm your sign-in. Please try again in a minute."),
  session_expired: () => new ApiProblem(401, 'session_expired', 'Your session has ended. Please sign in again.'),
} satisfies Record<string, () => ApiProblem>;

export const entryRefusal = {
  unknown_race: () => new ApiProblem(400, 'unknown_race', 'We don’t have that race yet. Pick one from the list, or ask us to add it.'),
  invalid_display_name: () =>
    new ApiProblem(400, 'invalid_display_name', `Please enter the name your friends will see (1 to ${MAX_RUNNER_NAME_LENGTH} characters).`),
  /** A share names one thing: a race entry or a note. */
  bad_request: () => new ApiProblem(400, 'bad_request', 'Share either a race entry (entryId) or one note (noteId).'),
  /** A signed audio URL past its expiry: the app fetches the notes again for fresh ones. */
  audio_link_expired: () => new ApiProblem(403, 'audio_link_expired', 'This audio link has expired. Open the notes again to get a fresh one.'),
} satisfies Record<string, () => ApiProblem>;
