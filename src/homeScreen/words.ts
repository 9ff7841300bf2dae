/**
 * The home screen's English words (src/i18n/enHome.ts) put into English when this module is
 * evaluated; each module that speaks them imports it first, so they are in before its first render
 * and the recorder's chunk never carries them.
 */
import { enHome } from '../i18n/enHome.js';
import { addEnglish } from '../i18n/index.js';

addEnglish(enHome);
