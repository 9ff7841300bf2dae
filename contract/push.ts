/**
 * Web Push as the server, the recorder and the service worker all read it: what a push
 * carries (encrypted to the one phone that subscribed, RFC 8291, so only that phone reads it) and
 * the few numbers they share. No imports: any runtime may use it.
 */

import type { Lang } from './languages.js';

/** A spectator's alert fires when the runner is expected at the marker in about this many minutes. */
export const ALERT_LEAD_MINUTES = 10;

/** Declarative Web Push's marker (WebKit, Safari 18.4+): a body with it is shown without running the worker. */
export const DECLARATIVE_PUSH = 8030;

/** A push's body stays under this (bytes): push services take 4 KB, less their encryption's overhead. */
export const MAX_PUSH_PAYLOAD_BYTES = 3072;

/**
 * What a push carries: Declarative Web Push JSON, which Safari 18.4+ shows by itself and
 * the service worker shows everywhere else. The words are the server's, in the phone's language; it
 * names the runner and the marker, never where the runner is. `navigate` is the link's recorder
 * (an absolute URL of this site): only the phone that subscribed on it can decrypt the push, and it
 * knew the token already.
 */
export interface DeclarativePush {
  web_push: typeof DECLARATIVE_PUSH;
  notification: {
    title: string;
    body?: string;
    navigate: string;
    lang: Lang;
    dir: 'auto';
    /** One per note (heard) or per marker alert (soon): a push sent twice shows once. */
    tag: string;
    silent: false;
  };
  /** The number the app's icon shows. */
  app_badge: number;
}
