/**
 * Web Push as the server, the recorder and the service worker all read it (issue 36): what a push
 * carries (encrypted to the one phone that subscribed, RFC 8291, so only that phone reads it) and
 * the few numbers they share. No imports: any runtime may use it.
 */

/** The languages a notice can speak: the recorder's (src/recorder/i18n/languages.ts; a test keeps them equal). */
export const PUSH_LANGUAGES = ['en', 'de', 'es', 'fr'] as const;
export type PushLang = (typeof PUSH_LANGUAGES)[number];

/** A spectator's alert fires when the runner is expected at the marker in about this many minutes. */
export const ALERT_LEAD_MINUTES = 10;

/**
 * What the service worker receives. It names the runner, the note and the marker, never where the
 * runner is. `url` is the link's recorder (/r/<token>), which a tap opens: only the phone that
 * subscribed on that recorder can decrypt it, and it knew the token already.
 */
export interface PushNotice {
  v: 1;
  /** heard: the runner's app played the note. soon: about ALERT_LEAD_MINUTES from the marker. */
  kind: 'heard' | 'soon';
  runner: string;
  /** The marker's id (mi-20, km-30, finish): where the note was heard, or the one asked about. */
  marker: string;
  /** heard only: the note's id. */
  note?: string;
  url: string;
  lang: PushLang;
}
