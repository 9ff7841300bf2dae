/**
 * The recorder's push routes' shapes, written once with typebox for validation, OpenAPI
 * and types: this phone's subscription for a link, whether it asked to hear of its notes played, and
 * its marker alerts. The page imports types only (typebox stays out of its bundle).
 */
import { Type, type Static } from 'typebox';
import { MARKER_ID_PATTERN } from './markers.js';
import { TOKEN_PATTERN } from './paths.js';
import { LANGUAGES } from './languages.js';

/** Longer than any push service's endpoint seen (FCM about 190 characters, Mozilla about 300). */
export const MAX_ENDPOINT_LENGTH = 1024;

export const PushParamsSchema = Type.Object({ token: Type.String({ pattern: TOKEN_PATTERN }) });
export const AlertParamsSchema = Type.Object({
  token: Type.String({ pattern: TOKEN_PATTERN }),
  marker: Type.String({ pattern: MARKER_ID_PATTERN }),
});

const LangSchema = Type.Union([Type.Literal(LANGUAGES[0]), Type.Literal(LANGUAGES[1]), Type.Literal(LANGUAGES[2]), Type.Literal(LANGUAGES[3])]);

/** The browser's PushSubscription.toJSON(), with what this phone asked for. */
export const PushSubscribeSchema = Type.Object(
  {
    endpoint: Type.String({ minLength: 1, maxLength: MAX_ENDPOINT_LENGTH, description: 'The push service URL (https, a host PUSH_HOSTS lists).' }),
    keys: Type.Object(
      {
        /** The browser's P-256 public key, base64url (65 bytes). */
        p256dh: Type.String({ pattern: '^[A-Za-z0-9_-]{86,88}={0,2}$' }),
        /** The browser's auth secret, base64url (16 bytes). */
        auth: Type.String({ pattern: '^[A-Za-z0-9_-]{21,24}={0,2}$' }),
      },
      { additionalProperties: true },
    ),
    /** The language its notices speak. */
    lang: LangSchema,
    /** Tell this phone when the runner hears the notes it sent on this link (and later ones). */
    heard: Type.Boolean(),
    /** PushSubscription.toJSON() also gives this; it is not used. */
    expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type PushSubscribe = Static<typeof PushSubscribeSchema>;

export const PushStateSchema = Type.Object({
  /** The VAPID public key (base64url): the browser's applicationServerKey. */
  publicKey: Type.String(),
  /** This phone holds a subscription on this link. */
  subscribed: Type.Boolean(),
  /** It asked to hear when its notes are played. */
  heard: Type.Boolean(),
  /** The language its notices speak, while subscribed. */
  lang: Type.Optional(LangSchema),
  /** Its marker alerts: waiting, or sent. */
  alerts: Type.Array(Type.Object({ marker: Type.String(), sent: Type.Boolean() })),
});
export type PushState = Static<typeof PushStateSchema>;
