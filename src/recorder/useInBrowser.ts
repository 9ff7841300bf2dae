import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False while the server draws a screen and while React takes over what the server drew (hydration,
 * which must draw what the server did), true from then on: what works only with the page's script
 * (a button's handler) says so from here.
 */
export const useInBrowser = (): boolean =>
  useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
