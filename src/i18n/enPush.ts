/**
 * English words only the recorder's later chunk speaks (src/recorder/laterControls.tsx,
 * the install offer and the push controls), loaded with it rather than with the recorder: the
 * chunk adds them to English when it loads (addEnglish in ./index.ts). The other languages'
 * catalogues, chunks of their own, carry these keys too; the keys and placeholders are en.ts's rules.
 */
export const enPush = {
  // Installing offered in the recorder (InstallOffer.tsx); notifications (src/recorder/push/),
  // asked for only on a tap; on iPhone, from the Home Screen app.
  'install.title': 'Keep MileNotes on this phone',
  'install.why': "Install MileNotes to be told when {runner} hears your note, and to open {runner}'s page from its icon, even without signal.",
  'install.button': 'Install MileNotes',
  'install.notNow': 'Not now',
  'install.iosWhy': 'To be told when {runner} hears your note, add MileNotes to your Home Screen: on iPhone, only the app there can tell you.',
  'install.iosSteps': 'Tap Share, then “Add to Home Screen”.',
  'install.iosWaiting.one': '{count} note still waiting on this phone goes from Safari: open this page in Safari until it has gone.',
  'install.iosWaiting.other': '{count} notes still waiting on this phone go from Safari: open this page in Safari until they have gone.',
  'push.heard.ask': 'Tell me when {runner} hears it',
  'push.heard.on': "You'll be told when {runner} hears your notes.",
  'push.turnOff': 'Turn off',
  'push.alert.ask': 'Tell me when {runner} is about {minutes} minutes from {marker}',
  'push.alert.on': "You'll be told when {runner} is about {minutes} minutes from {marker}.",
  'push.alert.cancel': "Don't tell me",
  'push.installFirst': 'On iPhone, notifications come through MileNotes on your Home Screen: tap Share, then Add to Home Screen, and open it from there.',
  'push.denied': 'Notifications are blocked for this site. Allow them in your browser settings, then try again.',
  'push.failed': "Notifications couldn't be turned on. Please try again.",
  'push.refusal.push_endpoint_refused': "MileNotes can't send notifications to this browser.",
  'push.refusal.push_link_full': 'Too many phones asked to be told on this link.',
  'push.refusal.push_phone_full': 'This phone asked to be told on too many links. Turn some off first.',
  'push.refusal.device_unknown': "This phone isn't known on this link yet. Reload the page, then try again.",
  'push.refusal.link_phones_busy.one': 'Many new phones opened this link in the last hour. Try again in about {count} minute. Your notes still reach {runner}.',
  'push.refusal.link_phones_busy.other':
    'Many new phones opened this link in the last hour. Try again in about {count} minutes. Your notes still reach {runner}.',
  'push.refusal.link_phones_full':
    'This link is full: every phone on it has sent a note or asked to be told. Ask {runner} for a new link. Your notes still reach {runner}.',
  'push.refusal.progress_not_shared': "{runner} isn't sharing progress right now.",
  'push.refusal.marker_passed': '{runner} has already passed {marker}.',
  'push.refusal.marker_too_near': '{runner} is already less than {minutes} minutes from {marker}.',
} as const;
