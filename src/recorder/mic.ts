/** What the recorder says when recording cannot start: plain explanations, in the language in use. */
import type { Blocked } from '../recording/engine.js';
import type { Unavailable } from '../recording/formats.js';
import { t } from '../i18n/index.js';

/** What to do about it, after each reason recording cannot be tried here. */
const inAnotherApp = (reason: string) => `${reason} ${t('mic.openInBrowser')}`;

const UNAVAILABLE = { insecure: 'mic.insecure', noMicrophone: 'mic.noMicrophone', noRecorder: 'mic.noRecorder' } as const;

/** Why recording cannot be tried in this browser, said. */
export const unavailableMessage = (reason: Unavailable): string => inAnotherApp(t(UNAVAILABLE[reason]));

/** getUserMedia's failures, each with how to fix it. */
export function microphoneErrorMessage(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return t('mic.denied');
    case 'NotFoundError':
    case 'OverconstrainedError':
      return t('mic.notFound');
    case 'NotReadableError':
    case 'AbortError':
      return t('mic.busy');
    default:
      return t('mic.failed', { name: name ?? t('mic.unknownError') });
  }
}

/** Why the engine did not start recording, said in the language in use. */
export function blockedMessage(blocked: Blocked): string {
  switch (blocked.kind) {
    case 'unavailable':
      return unavailableMessage(blocked.reason);
    case 'microphone':
      return microphoneErrorMessage({ name: blocked.error });
    case 'recorder':
      return t('record.cannotStart', { name: blocked.error });
  }
}
