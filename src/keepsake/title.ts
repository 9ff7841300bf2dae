/** The keepsake page's title, shared by the prerendered shell and the screen that takes it over. */
export const KEEPSAKE_TITLE = 'Shared voice notes · MileNotes';
