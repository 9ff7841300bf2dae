/**
 * The home screen's list, written once with typebox: GET /api/device/links answers the
 * runners this phone records for, found by the device cookie (server/devices); DELETE takes one off.
 * The server validates and serialises with these; the start page (src/homeScreen) imports the types.
 */
import { Type, type Static } from 'typebox';
import { raceFields } from './raceApi.js';

/** A link's id: the SHA-256 of its token, lower-case hex (server/links.ts linkIdOf). Names a link, opens nothing. */
export const LINK_ID_PATTERN = '^[0-9a-f]{64}$';

export const HomeScreenLinkSchema = Type.Object({
  /** The link's id (SHA-256 of its token): what DELETE takes, and what the page matches its own copy by. */
  linkId: Type.String({ pattern: LINK_ID_PATTERN }),
  runner: Type.Object({ displayName: Type.String() }),
  race: raceFields('id', 'name', 'date', 'timezone', 'startsAt', 'when'),
  /** The runner turned the link off (or replaced it): its recorder opens no more, and no token is given. */
  revoked: Type.Boolean(),
  /** The recorder's token, only while the link works: the cookie is a credential for exactly these. */
  token: Type.Optional(Type.String()),
  /** The recorder's address on this site (/r/<token>), only with `token`. */
  path: Type.Optional(Type.String()),
  /** When this phone last opened the link, ISO 8601. */
  openedAt: Type.String(),
});
export type HomeScreenLink = Static<typeof HomeScreenLinkSchema>;

export const HomeScreenLinksSchema = Type.Object({
  /** The links opened on this phone, the latest first; empty without the cookie. */
  links: Type.Array(HomeScreenLinkSchema),
});
export type HomeScreenLinks = Static<typeof HomeScreenLinksSchema>;

export const LinkIdParamsSchema = Type.Object({
  linkId: Type.String({ pattern: LINK_ID_PATTERN }),
});
