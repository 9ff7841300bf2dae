/**
 * The later chunk's English words (src/i18n/enPush.ts: the install offer, the push controls) put
 * into English when this module is evaluated. Each module that speaks them imports it first, so
 * they are in before any of them runs, and the recorder's chunk never carries them.
 */
import { enPush } from '../i18n/enPush.js';
import { addEnglish } from '../i18n/index.js';

addEnglish(enPush);
