import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './words.js';
import { startLanguage } from '../i18n/index.js';
import { Titled } from '../i18n/useLanguage.js';
import Keepsake from './index.js';

/** Replaces the prerendered /s/:token spinner with the keepsake screen (the on-demand chunk's entry), in this phone's language. */
export async function mountKeepsake(root: HTMLElement, token: string): Promise<void> {
  await startLanguage();
  createRoot(root).render(
    <StrictMode>
      <Titled title="title.keepsake">
        <Keepsake token={token} />
      </Titled>
    </StrictMode>,
  );
}
