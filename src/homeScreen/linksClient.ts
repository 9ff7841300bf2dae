/**
 * The home screen's requests: the runners this phone opened, and taking one off the
 * list. Apart from src/apiClient.ts so the recorder's chunk does not carry them.
 */
import { DEVICE_LINKS_PATH, deviceLinkPath } from '../../contract/paths.js';
import { getJson, type ApiAnswer } from '../apiClient.js';
import type { HomeScreenLinks } from '../../contract/homeScreenApi.js';

/**
 * GET /api/device/links: the runners this phone opened, found by its device cookie (HttpOnly, sent
 * by the browser; the page never sees it). Empty without one.
 */
export function getHomeScreenLinks(): Promise<ApiAnswer<HomeScreenLinks>> {
  return getJson(DEVICE_LINKS_PATH, { cache: 'no-store', credentials: 'same-origin' });
}

/** DELETE /api/device/links/:linkId: takes a runner off this phone's list. True once the server no longer lists it. */
export async function forgetHomeScreenLink(linkId: string): Promise<boolean> {
  try {
    const response = await fetch(deviceLinkPath(linkId), { method: 'DELETE', credentials: 'same-origin' });
    void response.body?.cancel().catch(() => undefined);
    // 404: it was not on the list (taken off before, from another tab): off it all the same.
    return response.ok || response.status === 404;
  } catch {
    return false;
  }
}
