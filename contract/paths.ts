/**
 * Every address of the site and of its API, written once: the prerendered pages (which route serves
 * which file: the server routes by it, server/routes/site.ts, and the build renders each one,
 * src/entry-server.tsx), the API's routes, the functions that build an address and the patterns
 * that read one. No imports, so the shell's script and the worker carry only what they use.
 */

/** A link's or a share's token in an address: 32 base64url characters as made (192 random bits), 22 to 64 taken. */
const TOKEN = '[A-Za-z0-9_-]{22,64}';

/** Link tokens: 32 base64url characters (192 random bits). */
export const TOKEN_PATTERN = `^${TOKEN}$`;

export interface SitePage {
  /** The server's route, in Fastify's syntax. */
  route: string;
  /** The URL the build renders for it. */
  url: string;
  /** The file in dist/. */
  file: string;
}

export const PAGES = {
  home: { route: '/', url: '/', file: 'index.html' },
  terms: { route: '/terms', url: '/terms', file: 'terms.html' },
  privacy: { route: '/privacy', url: '/privacy', file: 'privacy.html' },
  recorder: { route: '/r/:token', url: '/r/_', file: 'r.html' },
  keepsake: { route: '/s/:token', url: '/s/_', file: 's.html' },
  /** Where the installed app starts (the manifest's start_url): this phone's runners. */
  homeScreen: { route: '/home-screen', url: '/home-screen', file: 'home-screen.html' },
} as const satisfies Record<string, SitePage>;

export type PageName = keyof typeof PAGES;

/** Served with status 404 for any other page address; rendered from a URL no route matches. */
export const NOT_FOUND_PAGE = { url: '/__not-found', file: '404.html' } as const;

/** A link's recorder: what a runner sends friends, and what a notice's tap and the home screen's list open. */
export const recorderPath = (token: string) => `/r/${encodeURIComponent(token)}`;

/** The keepsake page of a runner's share. */
export const keepsakePath = (token: string) => `/s/${encodeURIComponent(token)}`;

/** A recorder's page as the shell and the worker read an address: the token the one group, a last slash taken (the API judges the token). */
export const RECORDER_PAGE = /^\/r\/([^/]+)\/?$/;
/** A keepsake's page, read as the recorder's. */
export const KEEPSAKE_PAGE = /^\/s\/([^/]+)\/?$/;
/** The home screen's page. */
export const HOME_SCREEN_PAGE = /^\/home-screen\/?$/;
/** The screens' pages (a recorder, a keepsake, the home screen); every other page is the site's own. */
export const SCREEN_PAGES = /^\/([rs]\/|home-screen)/;
/** Exactly a recorder's address for a token that can be one, nothing after it: the only page a notice's tap opens but the home page. */
export const RECORDER_PAGE_EXACT = /* @__PURE__ */ new RegExp(`^/r/${TOKEN}$`);

/** Where the API is served: every route of API_ROUTES is under it. */
export const API_PREFIX = '/api';

/** Every route of the API, under API_PREFIX, in Fastify's syntax. */
export const API_ROUTES = {
  // The recorder's: a link's data, a note, its resumable upload and what became of it; this phone's notifications on the link.
  link: '/r/:token',
  note: '/r/:token/notes/:noteId',
  noteStatus: '/r/:token/notes/:noteId/status',
  upload: '/r/:token/uploads/:noteId',
  push: '/r/:token/push',
  pushEndpoint: '/r/:token/push/endpoint',
  pushAlert: '/r/:token/push/alerts/:marker',
  // The home screen's list of the links this phone opened.
  deviceLinks: '/device/links',
  deviceLink: '/device/links/:linkId',
  // A keepsake: the notes a runner shared, and their audio.
  keepsake: '/s/:token',
  keepsakeAudio: '/s/:token/notes/:id/audio',
  // The runner's app (docs/app-contract.md).
  appleSignIn: '/auth/apple',
  refresh: '/auth/refresh',
  account: '/me',
  races: '/races',
  raceCourse: '/races/:id/course',
  entries: '/entries',
  entry: '/entries/:id',
  entryLink: '/entries/:id/link',
  entryNotes: '/entries/:id/notes',
  entryPositions: '/entries/:id/positions',
  runnerNote: '/notes/:id',
  noteAudio: '/notes/:id/audio',
  notePlayed: '/notes/:id/played',
  shares: '/shares',
  share: '/shares/:id',
  // The OpenAPI document of all of the above.
  openapi: '/openapi.json',
} as const;

/** GET /api/r/:token: a link's data. */
export const linkApiPath = (token: string) => `/api/r/${encodeURIComponent(token)}`;

/** The note's own resource: a whole PUT, or the creation of a resumable upload. */
export const notePath = (token: string, noteId: string) => `/api/r/${encodeURIComponent(token)}/notes/${encodeURIComponent(noteId)}`;

/** GET /api/r/:token/notes/:id/status: where the runner heard a note, if they have. */
export const noteStatusPath = (token: string, noteId: string) => `${notePath(token, noteId)}/status`;

/**
 * The upload resource of a note. The client names it by the note id it made, so a page that
 * cannot read 104 (XHR and fetch drop interim responses) still knows where to resume.
 */
export const uploadPath = (token: string, noteId: string) => `/api/r/${encodeURIComponent(token)}/uploads/${encodeURIComponent(noteId)}`;

/** This phone's notifications on a link. */
export const pushPath = (token: string) => `/api/r/${encodeURIComponent(token)}/push`;

/** Where the worker moves this phone's subscription on a link to the browser's new one. */
export const pushEndpointPath = (token: string) => `${pushPath(token)}/endpoint`;

/** This phone's alert for a marker on a link. */
export const pushAlertPath = (token: string, marker: string) => `${pushPath(token)}/alerts/${encodeURIComponent(marker)}`;

/** A push route of a link, its token the one group: the page's requests the worker watches (sw/pushChange.ts). */
export const PUSH_API_PATH = /* @__PURE__ */ new RegExp(`^/api/r/(${TOKEN})/push$`);

/** The links this phone opened, found by its device cookie. */
export const DEVICE_LINKS_PATH = '/api/device/links';

/** One link on this phone's list, by its id. */
export const deviceLinkPath = (linkId: string) => `${DEVICE_LINKS_PATH}/${encodeURIComponent(linkId)}`;

/** GET /api/s/:token: the notes a runner shared. */
export const keepsakeApiPath = (token: string) => `/api/s/${encodeURIComponent(token)}`;

/** The audio of a shared note, valid while the share is. */
export const keepsakeAudioPath = (token: string, noteId: string) => `${keepsakeApiPath(token)}/notes/${encodeURIComponent(noteId)}/audio`;
