/** Server refusals the recorder must not retry on its own: shared by the server that sends them and the outbox that reads them. */

/** 429 codes for a link that is full: waiting will not help; the sender must ask the runner for a new link. */
export const LINK_FULL_ERRORS: readonly string[] = ['link_full', 'link_storage_full'];
