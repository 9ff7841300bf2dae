/**
 * The English catalogue: every word of the recorder, and with ./enPush.ts, ./enHome.ts and
 * ./enKeepsake.ts (loaded with the chunks that speak them) the source of the keys. It is built into the recorder's chunk (English is also the fallback); the other languages
 * are chunks of their own, loaded only when chosen. `{name}` is a placeholder: every language has
 * the same ones for a key (tests/src/i18n/catalogues.test.ts). Keys ending in `.one` and
 * `.other` are the two plural forms of one sentence (see `pluralOne` in languages.ts).
 */
import { RECORDER_TITLE } from '../shell.js';
import type { enHome } from './enHome.js';
import type { enKeepsake } from './enKeepsake.js';
import type { enPush } from './enPush.js';

export const en = {
  'language.label': 'Language',
  'title.recorder': RECORDER_TITLE,

  // Dates and markers, written by hand (contract/dates.ts says why not Intl).
  'date.race': '{month} {day}, {year}',
  'date.firstDay': '1',
  'month.1': 'Jan',
  'month.2': 'Feb',
  'month.3': 'Mar',
  'month.4': 'Apr',
  'month.5': 'May',
  'month.6': 'Jun',
  'month.7': 'Jul',
  'month.8': 'Aug',
  'month.9': 'Sep',
  'month.10': 'Oct',
  'month.11': 'Nov',
  'month.12': 'Dec',
  'marker.mile': 'Mile {n}',
  'marker.km': '{n} km',
  'marker.finish': 'Finish',

  // The race clock (RaceClock.tsx): where the race stands, its day written for the race's own time zone. The race's
  // name is in the header above; a sentence does not carry it, as no article fits every race's name.
  'raceClock.upcoming': '{runner} runs on {date}.',
  'raceClock.live': '{runner} is running now.',
  'raceClock.past': "{runner}'s race is over. Your note will wait in their keepsake.",
  'raceClock.date.1': '{weekday}, January {day}, {year}',
  'raceClock.date.2': '{weekday}, February {day}, {year}',
  'raceClock.date.3': '{weekday}, March {day}, {year}',
  'raceClock.date.4': '{weekday}, April {day}, {year}',
  'raceClock.date.5': '{weekday}, May {day}, {year}',
  'raceClock.date.6': '{weekday}, June {day}, {year}',
  'raceClock.date.7': '{weekday}, July {day}, {year}',
  'raceClock.date.8': '{weekday}, August {day}, {year}',
  'raceClock.date.9': '{weekday}, September {day}, {year}',
  'raceClock.date.10': '{weekday}, October {day}, {year}',
  'raceClock.date.11': '{weekday}, November {day}, {year}',
  'raceClock.date.12': '{weekday}, December {day}, {year}',
  'raceClock.weekday.0': 'Sunday',
  'raceClock.weekday.1': 'Monday',
  'raceClock.weekday.2': 'Tuesday',
  'raceClock.weekday.3': 'Wednesday',
  'raceClock.weekday.4': 'Thursday',
  'raceClock.weekday.5': 'Friday',
  'raceClock.weekday.6': 'Saturday',

  // The link (src/recorder/index.tsx, useLink.ts).
  'link.eyebrow': 'Record a voice note for',
  'link.goneTitle': 'This link is not active',
  'link.gone': 'It may have been mistyped or turned off by the runner. Ask them to send it again.',
  'link.unreachableTitle': "Can't load this link",
  'link.unreachable': "We can't load this link right now. Check your connection and reload the page; it works offline once it has loaded.",

  // Where and from whom (DetailsFields.tsx).
  'details.marker': 'Marker',
  'details.markerPrompt': 'Choose where {runner} hears it',
  'details.name': 'Your name',
  'details.namePlaceholder': "So they know who it's from",

  // Progress shared by the runner on race day (src/recorder/Progress*.tsx).
  'progress.passed': '{runner} passed {marker} at {time}.',
  'progress.passedSuffix': ' (passed)',
  'progress.passedChosen': "{runner} has passed {marker}: this note will play as soon as it reaches {runner}'s phone.",

  // When the runner is expected at the markers ahead (src/recorder/Estimates.tsx).
  'eta.suggestedSuffix': ' (suggested)',
  'eta.asOf': 'Expected times as of {time}.',
  'eta.stale.one': 'Expected times as of {time}, estimated {count} minute ago.',
  'eta.stale.other': 'Expected times as of {time}, estimated {count} minutes ago.',
  'eta.suggested': '{marker} is suggested: {runner} is expected there about {time}, late enough for a note sent now to arrive in time.',
  'eta.tooNear':
    '{runner} is expected at {marker} about {time}, likely before a note sent now reaches their phone. You can still send it: it will play as soon as it arrives.',
  'eta.tooNearTry': 'To be heard in time, choose {marker} or later.',

  // Recording (RecordPanel.tsx).
  'record.record': 'Record',
  'record.hint': 'Up to one minute. Speak close to the phone.',
  'record.recording': 'Recording',
  'record.ofMinute': 'of 1:00',
  'record.stop': 'Stop',
  'record.autoStop': 'It stops by itself at one minute.',
  'record.recovered': 'We kept the recording that was interrupted. Listen to it, then send it or record again.',
  'record.yourNote': 'Your note · {length}',
  'record.audioLabel': 'Your recorded note',
  'record.again': 'Record again',
  'record.send': 'Send',
  'record.leftover': 'You have an unfinished recording from {time} (about {seconds} s). It was kept on this phone.',
  'record.listenAndSend': 'Listen and send',

  // The status line (StatusLine.tsx).
  'status.online': 'Online.',
  'status.onlineWaiting.one': 'Online. {count} note waiting to send.',
  'status.onlineWaiting.other': 'Online. {count} notes waiting to send.',
  'status.offline.one': "You're offline. {count} note waiting on this phone.",
  'status.offline.other': "You're offline. {count} notes waiting on this phone.",
  'status.backgroundSync': "Your notes will send automatically when you're back online, even if you close this page.",
  'status.pageOnly': 'This browser sends them only while this page is open: keep it open, or open it again when you have signal.',

  // The person's notes (NoteList.tsx). A note the server holds is 'safe with us', never 'delivered': the runner has
  // it only once their app does ('on their phone'), and the page learns no more than that and that the runner heard it.
  'notes.title': 'Your notes for {runner}',
  'note.waiting': 'Saved on this phone',
  'note.sending': 'Sending',
  'note.sendingPercent': 'Sending {percent}%',
  'note.safe': 'Safe with us',
  'note.waitingForPhone': "Waiting for {runner}'s phone to fetch it.",
  'note.onPhone': "On {runner}'s phone",
  'note.heard': 'Heard by {runner}',
  'note.sent': 'Sent',
  'note.failed': 'Needs attention',
  'note.unplayable': "Can't be played",
  'note.unplayableReason': "This note arrived, but its sound could not be used, so {runner} won't hear it. Please record it again.",
  'note.meta': '{time} · {seconds} s · from {from}',
  'note.heardAt': 'Heard at {marker}',
  'note.retry': 'Retry',
  'note.delete': 'Delete',
  'note.confirmDelete': 'Delete this note? It has not reached {runner} and cannot be recovered.',

  // The microphone (mic.ts, useRecorder.ts).
  'mic.openInBrowser':
    "If you opened this link inside another app (Instagram, Facebook, WhatsApp…), tap the ••• menu and choose 'Open in Safari' or 'Open in browser'.",
  'mic.insecure': 'This page must be opened over a secure (https) link to use the microphone.',
  'mic.noMicrophone': "This browser can't use the microphone.",
  'mic.noRecorder': "This browser can't record audio.",
  'mic.denied':
    'Microphone access is turned off for this page. On iPhone: open Settings › Safari › Microphone and choose Allow ' +
    '(and check Settings › Privacy & Security › Microphone). On Android: tap the icon left of the address, ' +
    "choose Permissions › Microphone › Allow. Then tap 'Record' again.",
  'mic.notFound': "No microphone was found on this device. Connect or turn on a microphone, then tap 'Record' again.",
  'mic.busy': "The microphone is busy in another app (a call or a voice memo?). Close that app, then tap 'Record' again.",
  'mic.failed': 'The microphone could not start ({name}). Reload the page and try again.',
  'mic.unknownError': 'unknown error',
  'record.cannotStart': 'This browser could not start recording ({name}). Try Safari or Chrome.',
  'record.cannotSave': 'This phone could not save a recording. Reload and try again.',
  'record.partLost': 'Part of this recording could not be saved on this phone.',
  'storage.low': "Your phone is almost out of storage. Free some space before recording so your note can be kept until it's sent.",

  // Named failures (src/outbox/errors.ts) and one fallback per action (failures.ts).
  'error.storageFull':
    "Your phone's storage is full, so recording stopped. What you had already recorded is kept and " +
    'you can still send it. To record more, free some space (delete photos or videos) first.',
  'error.recordingMissing': 'This recording is no longer on this phone. Please record your note again.',
  'failed.record': 'Recording could not start. Reload the page and try again.',
  'failed.save': 'This note could not be saved on this phone. Try again.',
  'failed.listen': 'This recording could not be opened. Try again, or record again.',
  'failed.recordAgain': 'This recording could not be removed from this phone. Try again.',
  'failed.retry': 'This note could not be queued again. Try again in a moment.',
  'failed.delete': 'This note could not be deleted from this phone. Try again.',
  'failed.readNotes': "Your notes could not be read from this phone's storage. Reload the page to see them.",
  'failed.send': "Sending stopped: this phone's storage could not be read. Reload the page to try again.",

  // What RecorderScreen.tsx says before a send, and the outbox's own reasons on a note, by OUTBOX_CODE (noteWords.ts).
  'send.chooseMarker': 'Choose the marker where {runner} should hear your note.',
  'send.addName': "Add your name so {runner} knows who it's from.",
  'send.sectionLabel': 'Your note',
  'outbox.recordingMissing': 'The recording of this note is missing on this phone. Please record it again.',
  'outbox.noConnection': 'No connection right now. The note is saved on this phone and will be sent when there is one.',
  'outbox.serverBusy': 'The server is busy (error {status}).',
  'outbox.notAccepted': 'The server could not accept this note (error {status}).',

  // Every wait explained: when a note held back by a limit is tried again (noteWords.ts).
  'wait.soon': 'It will be tried again in less than a minute.',
  'wait.at': 'It will be tried again at {time}.',
  'wait.whenOnline': 'It will be tried again when this phone is back online.',

  // The server's refusals, by the answer's `error` code (server/**: ApiProblem and the routes' own answers).
  'refusal.link_not_found': "This link doesn't work any more. Ask the runner for a new one.",
  'refusal.link_full': 'This link has reached its limit of notes. Ask {runner} for a new link.',
  'refusal.link_storage_full': 'This link has no room left for more recordings. Ask {runner} for a new link.',
  'refusal.too_large': 'This recording is too big to send (the limit is {maxMb} MB). Please record a shorter note.',
  'refusal.not_audio': "This file isn't a voice recording we can play. Please record the note again.",
  'refusal.note_conflict': 'A different recording was already sent with this note id. Nothing was changed.',
  'refusal.invalid_note_id': 'The note id must be a UUID made by the recorder.',
  'refusal.invalid_from': 'Please enter your name (1 to {maxName} characters) so the runner knows who the note is from.',
  'refusal.unknown_marker': 'Please pick a mile marker from the list.',
  'refusal.digest_required': 'The upload needs a checksum of the recording. Please reload the page and try again.',
  'refusal.digest_mismatch': 'The recording changed on the way (its checksum does not match). It will be sent again.',
  'refusal.upload_interrupted': 'The upload was cut off before it finished. It will be sent again.',
  'refusal.upload_not_found': 'The server holds no unfinished upload of this note. It will be sent whole.',
  'refusal.upload_busy': 'The server is still saving an earlier attempt of this note. It will be sent again in a moment.',
  'refusal.mismatching-upload-offset': 'The server has a different part of this note than expected. It will be sent again from where the server stopped.',
  'refusal.completed-upload': 'This note has already arrived in full.',
  'refusal.inconsistent-upload-length': 'The note changed length between attempts. Please record it again.',
  'refusal.not_partial_upload': 'The server did not understand how this note was sent. Please reload the page and try again.',
  'refusal.rate_limited': 'Too many requests in a short time. Please wait a moment; your notes will be sent again.',
  'refusal.address_rate_limited': 'Many notes were sent from this network in a short time. Your note is saved on this phone and will be sent again shortly.',
  'refusal.too_many_open_uploads': 'Several notes are already being sent from this network. This one will follow in a moment.',
  'refusal.shutting_down': 'This server is restarting. Your note is kept on your phone and will be sent again in a moment.',
  'refusal.server_error': 'Something went wrong on our side. Your note is kept on your phone and will be sent again.',
  'refusal.storage_unavailable': 'The server cannot reach its storage for a moment. Your note is kept on your phone and will be sent again.',
  'refusal.storage_full': 'The server has no room to store notes right now. Your note is kept on your phone and will be sent again.',
  'refusal.bad_request': 'The request was not understood. Please reload the page and try again.',
  'refusal.not_found': 'This was not found. The link may be incomplete.',
  'refusal.note_not_found': 'This note was not found.',
  // The runner removes a note: a sender's phone sending it again is told why it stops.
  'refusal.note_removed': 'The runner removed this note, so it will not be sent again.',
} as const;

/** All of English: the part above, and the parts the later chunk, the home screen and the keepsake bring (enPush.ts, enHome.ts, enKeepsake.ts). */
export type English = typeof en & typeof enPush & typeof enHome & typeof enKeepsake;
export type Key = keyof English;

/** What every other language must give: a sentence for each key (placeholders checked by the test). */
export type Catalogue = { readonly [K in Key]: string };
