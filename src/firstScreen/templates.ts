/** The templates the server draws beside the recorder's first screen (src/entry-recorder.tsx), for its script (./screen.ts). */

/** The recording panel, as React draws it while recording. */
export const RECORDING_PANEL_TEMPLATE_ID = 'recording-panel';

/** The alert for a refused microphone, as React says it. */
export const MIC_DENIED_TEMPLATE_ID = 'mic-denied';
