/**
 * The site's prerendered pages: which route serves which file. The server routes by it
 * (server/routes/site.ts) and the build renders each one (src/entry-server.tsx).
 */
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
  /** Where the installed app starts (the manifest's start_url, issue 36): this phone's runners. */
  homeScreen: { route: '/home-screen', url: '/home-screen', file: 'home-screen.html' },
} as const satisfies Record<string, SitePage>;

export type PageName = keyof typeof PAGES;

/** Served with status 404 for any other page address; rendered from a URL no route matches. */
export const NOT_FOUND_PAGE = { url: '/__not-found', file: '404.html' } as const;

/** /r/:token's shell: the comments around its spinner, which the server replaces with the screen it draws for a live link. */
export const RECORDER_SCREEN_MARKS = { start: '<!--screen-->', end: '<!--/screen-->' } as const;

/**
 * Where the build puts the server's drawing of /r/:token's first screen (src/entry-recorder.tsx),
 * under the site's folder, so a copy of that folder is all a server needs; never served (a dot folder).
 */
export const RECORDER_RENDERER = '.server/recorder.mjs';
