import { CHUNK_ERROR_TEMPLATE_ID } from './shell';

/**
 * Shows the prerendered error screen in place of the spinner when the screen's chunk could
 * not load. 'Try again' reloads the page, because a failed dynamic import is cached by the
 * browser and cannot be retried in place (vite #20313); the reload only ever follows a
 * person's tap, so it cannot loop.
 */
export function showChunkError(root: HTMLElement): void {
  const template = document.getElementById(CHUNK_ERROR_TEMPLATE_ID) as HTMLTemplateElement | null;
  root.replaceChildren(template ? template.content.cloneNode(true) : document.createTextNode("We couldn't load this page. Reload to try again."));
  root.querySelector('button')?.addEventListener('click', () => window.location.reload());
}
