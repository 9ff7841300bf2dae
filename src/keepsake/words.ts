/**
 * The keepsake's English words (src/i18n/enKeepsake.ts) put into English when this module is
 * evaluated; each module that speaks them imports it first, so they are in before its first render
 * and the recorder's chunk, which shares the words' code with the keepsake, never carries them.
 */
import { enKeepsake } from '../i18n/enKeepsake.js';
import { addEnglish } from '../i18n/index.js';

addEnglish(enKeepsake);
