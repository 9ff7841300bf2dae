import { CHUNK_ERROR_TEMPLATE_ID } from './shell';

/**
 * Shows the prerendered error screen in place of the spinner when the screen's chunk could
 * not load; above a screen the server drew (the recorder's first screen, which records without
 * the chunk), so a recording under way goes on and Stop stays. 'Try again' reloads the page, because
 * a failed dynamic import is cached by the browser and cannot be retried in place (vite #20313);
 * the reload only ever follows a person's tap, so it cannot loop.
 */
export function showChunkError(root: HTMLElement): void {
  const template = document.getElementById(CHUNK_ERROR_TEMPLATE_ID) as HTMLTemplateElement | null;
  const error = template ? template.content.cloneNode(true) : document.createTextNode("We couldn't load this page. Reload to try again.");
  const drawn = root.querySelector('main[data-screen]');
  if (drawn) drawn.prepend(error);
  else root.replaceChildren(error);
  root.querySelector('.status-screen button')?.addEventListener('click', () => window.location.reload());
}
