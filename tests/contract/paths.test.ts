/**
 * The addresses the page, the worker and the server build are the ones the server routes: each
 * path built matches its own route and no other, with its parameters escaped, and the patterns the
 * shell and the worker read an address with give back what was built.
 */
import { describe, expect, it } from 'vitest';
import {
  API_PREFIX,
  API_ROUTES,
  DEVICE_LINKS_PATH,
  deviceLinkPath,
  HOME_SCREEN_PAGE,
  KEEPSAKE_PAGE,
  keepsakeApiPath,
  keepsakeAudioPath,
  keepsakePath,
  linkApiPath,
  notePath,
  noteStatusPath,
  PAGES,
  PUSH_API_PATH,
  pushAlertPath,
  pushEndpointPath,
  pushPath,
  RECORDER_PAGE,
  RECORDER_PAGE_EXACT,
  recorderPath,
  SCREEN_PAGES,
  TOKEN_PATTERN,
  uploadPath,
} from '../../contract/paths.js';

const TOKEN = 'Zx8_Kq-3vB1nW7cR0tYh5LmA2sD9fG4j';
const NOTE = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** A route in Fastify's syntax as a pattern: each `:name` one path segment. */
const routePattern = (route: string) => new RegExp(`^${route.replace(/:\w+/g, '[^/]+')}$`);
type ApiRoute = keyof typeof API_ROUTES;
const routesMatching = (path: string) => (Object.keys(API_ROUTES) as ApiRoute[]).filter((name) => routePattern(`${API_PREFIX}${API_ROUTES[name]}`).test(path));

describe('the API paths a client builds', () => {
  const built: Array<[ApiRoute, string]> = [
    ['link', linkApiPath(TOKEN)],
    ['note', notePath(TOKEN, NOTE)],
    ['noteStatus', noteStatusPath(TOKEN, NOTE)],
    ['upload', uploadPath(TOKEN, NOTE)],
    ['push', pushPath(TOKEN)],
    ['pushEndpoint', pushEndpointPath(TOKEN)],
    ['pushAlert', pushAlertPath(TOKEN, 'mi-13')],
    ['deviceLinks', DEVICE_LINKS_PATH],
    ['deviceLink', deviceLinkPath('ab'.repeat(32))],
    ['keepsake', keepsakeApiPath(TOKEN)],
    ['keepsakeAudio', keepsakeAudioPath(TOKEN, NOTE)],
  ];

  it.each(built)('should match the %s route, and only it', (name, path) => {
    expect(routesMatching(path)).toEqual([name]);
  });

  it('should escape what it puts in a path, so a parameter stays one segment', () => {
    expect(notePath('a/b', '../x')).toBe('/api/r/a%2Fb/notes/..%2Fx');
    expect(routesMatching(pushAlertPath('a?b', 'mi/13'))).toEqual(['pushAlert']);
  });

  it("should give the token of a push route back to the worker, and no other route's", () => {
    expect(PUSH_API_PATH.exec(pushPath(TOKEN))?.[1]).toBe(TOKEN);
    expect(PUSH_API_PATH.test(pushEndpointPath(TOKEN))).toBe(false);
    expect(PUSH_API_PATH.test(pushPath('short'))).toBe(false);
  });
});

describe('the pages a client opens', () => {
  it("should build a recorder's and a keepsake's address on their pages' routes", () => {
    expect(recorderPath(TOKEN)).toMatch(routePattern(PAGES.recorder.route));
    expect(keepsakePath(TOKEN)).toMatch(routePattern(PAGES.keepsake.route));
  });

  it('should read the token back from the address the shell is on, with or without a last slash', () => {
    expect(RECORDER_PAGE.exec(recorderPath(TOKEN))?.[1]).toBe(TOKEN);
    expect(RECORDER_PAGE.exec(`${recorderPath('a/b')}/`)?.[1]).toBe('a%2Fb');
    expect(KEEPSAKE_PAGE.exec(keepsakePath(TOKEN))?.[1]).toBe(TOKEN);
    expect(HOME_SCREEN_PAGE.test(PAGES.homeScreen.url)).toBe(true);
    expect(RECORDER_PAGE.test(keepsakePath(TOKEN))).toBe(false);
  });

  it("should let a notice open a recorder only at a token's exact address", () => {
    expect(RECORDER_PAGE_EXACT.test(recorderPath(TOKEN))).toBe(true);
    for (const other of [`${recorderPath(TOKEN)}/`, recorderPath('short'), recorderPath(`${TOKEN}/x`), keepsakePath(TOKEN)]) {
      expect(RECORDER_PAGE_EXACT.test(other), other).toBe(false);
    }
    expect(new RegExp(TOKEN_PATTERN).test(TOKEN)).toBe(true);
  });

  it("should tell the screens' pages from the site's own", () => {
    const screens = Object.values(PAGES).filter((page) => SCREEN_PAGES.test(page.url));
    expect(screens.map((page) => page.file).sort()).toEqual(['home-screen.html', 'r.html', 's.html']);
  });
});
