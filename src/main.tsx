import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './App';
import { registerServiceWorker } from './serviceWorker';

const root = document.getElementById('root')!;
const app = (
  <StrictMode>
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  </StrictMode>
);

// Pages arrive prerendered (scripts/build.mjs); React takes over the markup in place.
if (root.firstElementChild) hydrateRoot(root, app);
else createRoot(root).render(app);

registerServiceWorker();
