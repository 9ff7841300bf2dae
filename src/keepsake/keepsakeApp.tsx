import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import Keepsake from './index.js';
import { KEEPSAKE_TITLE } from './title.js';

/** Replaces the prerendered /s/:token spinner with the keepsake screen (the on-demand chunk's entry). */
export function mountKeepsake(root: HTMLElement, token: string): void {
  document.title = KEEPSAKE_TITLE;
  createRoot(root).render(
    <StrictMode>
      <Keepsake token={token} />
    </StrictMode>,
  );
}
