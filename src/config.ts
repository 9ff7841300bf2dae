/** Product-wide constants shown on the site and used by the server. One place for each. */
export const PRODUCT_NAME = 'MileNotes';

/** The spec's {email}: support contact and race requests go to the same address. */
export const SUPPORT_EMAIL = 'hello@milenotes.app';

export const TAGLINE = 'Voice notes from your family and friends to keep you going at every mile';

/** Pre-filled e-mail for 'Get in touch' (the home page's closing section). */
export const RACE_REQUEST_MAILTO =
  `mailto:${SUPPORT_EMAIL}?subject=${encodeURIComponent('New race request')}` +
  `&body=${encodeURIComponent('Hi MileNotes team,\n\nPlease add my race:\n\nRace name:\nDate:\nCity and country:\nRace website:\n\nThanks!')}`;

/** Load time-out for on-demand script pieces, as webpack's chunk loader has it. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;
