/**
 * English words only the home screen speaks (src/homeScreen/, where the installed app
 * starts), loaded with it rather than with the recorder: it adds them to English before its first
 * render (addEnglish in ./index.ts). The other languages' catalogues carry these keys too.
 */
import { HOME_SCREEN_TITLE } from '../shell.js';

export const enHome = {
  'title.homeScreen': HOME_SCREEN_TITLE,
  'home.title': 'Your runners',
  'home.lead': 'The runners you record voice notes for on this phone.',
  'home.empty': 'No runners yet. Open the link a runner sent you, and they appear here.',
  'home.offline': "You're offline. This is the list kept on this phone; your notes wait here until there is signal.",
  'home.race.upcoming': '{race} on {date}',
  'home.race.live': '{race} · running now',
  'home.race.past': '{race} · over',
  'home.gone': 'This link no longer works. Ask {runner} for a new one.',
  'home.open': 'Record for {runner}',
  'home.waiting.one': '{count} note waiting on this phone',
  'home.waiting.other': '{count} notes waiting on this phone',
  'home.leaving': 'Comes off this list once its notes are sent.',
  'home.remove': 'Remove',
  'home.removeLabel': 'Remove {runner} from this list',
  'home.confirmRemove': 'Take {runner} off this list? Opening their link again brings them back.',
  'home.confirmRemoveWaiting.one':
    '{count} note for {runner} has not been sent yet. It stays on this phone and will still be sent; {runner} comes off the list once it has gone. Take {runner} off the list?',
  'home.confirmRemoveWaiting.other':
    '{count} notes for {runner} have not been sent yet. They stay on this phone and will still be sent; {runner} comes off the list once they have gone. Take {runner} off the list?',
  'home.confirmRemoveGone.one':
    "{count} note for {runner} waits on this phone, but the link no longer works, so it can't be sent. Delete it and take {runner} off the list?",
  'home.confirmRemoveGone.other':
    "{count} notes for {runner} wait on this phone, but the link no longer works, so they can't be sent. Delete them and take {runner} off the list?",
  'home.removeFailed': "{runner} couldn't be taken off the list. Try again when you have signal.",
} as const;
