/** Names shared by the prerendered /r/:token shell and the scripts that take it over. */
export const RECORDER_TITLE = 'Record a voice note · MileNotes';

/** The id of the template that src/chunkError.ts shows when the screen's chunk cannot load. */
export const CHUNK_ERROR_TEMPLATE_ID = 'chunk-error';
