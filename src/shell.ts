/** Names shared by the prerendered shells (/r/:token, /s/:token, /home-screen) and the scripts that take them over. */
export const RECORDER_TITLE = 'Record a voice note · MileNotes';

/** What the /r/:token screen is for, said while it loads. */
export const RECORDER_LEAD =
  "You're about to record a short voice note for a marathon runner. On race day it plays in their ears when they reach the mile you choose.";

/** The keepsake page's title, shared by the prerendered shell and the screen that takes it over. */
export const KEEPSAKE_TITLE = 'Shared voice notes · MileNotes';

/** The home screen (/home-screen): its title while its list loads. */
export const HOME_SCREEN_TITLE = 'Your runners · MileNotes';

/** The id of the template that src/chunkError.ts shows when the screen's chunk cannot load. */
export const CHUNK_ERROR_TEMPLATE_ID = 'chunk-error';

/**
 * The id of the data block naming a shell's screen files when its <head> does not preload them
 * (r.html: its first screen records before they come); src/main.ts asks for them together.
 */
export const SCREEN_FILES_ID = 'screen-files';
