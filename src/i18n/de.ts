/** Deutsch: the catalogue, keys and placeholders as in en.ts. Du, as friends and family speak. */
import type { Catalogue, Notices } from './en.js';

/** Issue 36, was eine Push-Nachricht auf dem Handy zeigt (server/push/notice.ts liest nur diesen Block). */
export const deNotices = {
  'notice.heard.mi': '{runner} hat deine Nachricht bei Meile {n} gehört',
  'notice.heard.km': '{runner} hat deine Nachricht bei Kilometer {n} gehört',
  'notice.heard.finish': '{runner} hat deine Nachricht im Ziel gehört',
  'notice.soon.mi': '{runner} ist etwa {minutes} Minuten von Meile {n} entfernt',
  'notice.soon.km': '{runner} ist etwa {minutes} Minuten von Kilometer {n} entfernt',
  'notice.soon.finish': '{runner} ist etwa {minutes} Minuten vom Ziel entfernt',
} satisfies Notices;

const de: Catalogue = {
  'language.label': 'Sprache',
  'title.recorder': 'Sprachnachricht aufnehmen · MileNotes',
  'title.keepsake': 'Geteilte Sprachnachrichten · MileNotes',

  'date.race': '{day}. {month} {year}',
  'date.firstDay': '1',
  'month.1': 'Januar',
  'month.2': 'Februar',
  'month.3': 'März',
  'month.4': 'April',
  'month.5': 'Mai',
  'month.6': 'Juni',
  'month.7': 'Juli',
  'month.8': 'August',
  'month.9': 'September',
  'month.10': 'Oktober',
  'month.11': 'November',
  'month.12': 'Dezember',
  'marker.mile': 'Meile {n}',
  'marker.km': '{n} km',
  'marker.finish': 'Ziel',

  // Issue 18, the race clock (RaceClock.tsx).
  'raceClock.upcoming': '{runner} läuft den {race} am {date}.',
  'raceClock.live': '{runner} läuft gerade den {race}.',
  'raceClock.past': 'Das Rennen von {runner} ist vorbei. Deine Nachricht wird als Andenken aufbewahrt.',
  'raceClock.date.1': '{weekday}, {day}. Januar {year}',
  'raceClock.date.2': '{weekday}, {day}. Februar {year}',
  'raceClock.date.3': '{weekday}, {day}. März {year}',
  'raceClock.date.4': '{weekday}, {day}. April {year}',
  'raceClock.date.5': '{weekday}, {day}. Mai {year}',
  'raceClock.date.6': '{weekday}, {day}. Juni {year}',
  'raceClock.date.7': '{weekday}, {day}. Juli {year}',
  'raceClock.date.8': '{weekday}, {day}. August {year}',
  'raceClock.date.9': '{weekday}, {day}. September {year}',
  'raceClock.date.10': '{weekday}, {day}. Oktober {year}',
  'raceClock.date.11': '{weekday}, {day}. November {year}',
  'raceClock.date.12': '{weekday}, {day}. Dezember {year}',
  'raceClock.weekday.0': 'Sonntag',
  'raceClock.weekday.1': 'Montag',
  'raceClock.weekday.2': 'Dienstag',
  'raceClock.weekday.3': 'Mittwoch',
  'raceClock.weekday.4': 'Donnerstag',
  'raceClock.weekday.5': 'Freitag',
  'raceClock.weekday.6': 'Samstag',

  'link.eyebrow': 'Sprachnachricht für',
  'link.goneTitle': 'Dieser Link ist nicht aktiv',
  'link.gone': 'Vielleicht hat sich ein Tippfehler eingeschlichen, oder der Link wurde abgeschaltet. Lass ihn dir noch einmal schicken.',
  'link.unreachableTitle': 'Der Link lässt sich nicht laden',
  'link.unreachable': 'Der Link lässt sich gerade nicht laden. Prüfe deine Verbindung und lade die Seite neu. Einmal geladen, funktioniert er auch offline.',

  'details.marker': 'Streckenpunkt',
  'details.markerPrompt': 'Wähle, wo {runner} sie hört',
  'details.name': 'Dein Name',
  'details.namePlaceholder': 'Damit klar ist, von wem sie kommt',

  // Fortschritt, den der Läufer am Renntag teilt (Issue 19: src/recorder/Progress*.tsx).
  'progress.passed': '{runner} hat {marker} um {time} passiert.',
  'progress.passedSuffix': ' (passiert)',
  'progress.passedChosen': '{runner} hat {marker} schon passiert: Diese Nachricht wird abgespielt, sobald sie auf dem Handy von {runner} ankommt.',

  'eta.option': '{marker} · etwa {time}',
  'eta.suggestedSuffix': ' (empfohlen)',
  'eta.asOf': 'Erwartete Zeiten, Stand {time}.',
  'eta.stale.one': 'Erwartete Zeiten, Stand {time}, vor {count} Minute geschätzt.',
  'eta.stale.other': 'Erwartete Zeiten, Stand {time}, vor {count} Minuten geschätzt.',
  'eta.suggested': 'Empfohlen: {marker}. Dort wird {runner} etwa um {time} erwartet, spät genug, damit eine jetzt gesendete Nachricht rechtzeitig ankommt.',
  'eta.tooNear':
    '{runner} wird etwa um {time} bei {marker} erwartet, wahrscheinlich bevor eine jetzt gesendete Nachricht auf dem Handy ankommt. Du kannst sie trotzdem senden: Sie wird abgespielt, sobald sie ankommt.',
  'eta.tooNearTry': 'Damit sie rechtzeitig zu hören ist, wähle {marker} oder später.',

  'record.record': 'Aufnehmen',
  'record.hint': 'Bis zu einer Minute. Sprich nah am Handy.',
  'record.recording': 'Aufnahme läuft',
  'record.ofMinute': 'von 1:00',
  'record.stop': 'Stopp',
  'record.autoStop': 'Nach einer Minute endet die Aufnahme von selbst.',
  'record.recovered': 'Wir haben die unterbrochene Aufnahme aufbewahrt. Hör sie dir an, dann schick sie ab oder nimm neu auf.',
  'record.yourNote': 'Deine Nachricht · {length}',
  'record.audioLabel': 'Deine aufgenommene Nachricht',
  'record.again': 'Neu aufnehmen',
  'record.send': 'Senden',
  'record.leftover': 'Du hast eine unfertige Aufnahme von {time} Uhr (etwa {seconds} s). Sie ist auf diesem Handy gespeichert.',
  'record.listenAndSend': 'Anhören und senden',

  'status.online': 'Online.',
  'status.onlineWaiting.one': 'Online. {count} Nachricht wartet auf den Versand.',
  'status.onlineWaiting.other': 'Online. {count} Nachrichten warten auf den Versand.',
  'status.offline.one': 'Du bist offline. {count} Nachricht wartet auf diesem Handy.',
  'status.offline.other': 'Du bist offline. {count} Nachrichten warten auf diesem Handy.',
  'status.backgroundSync': 'Deine Nachrichten gehen automatisch raus, sobald du wieder online bist, auch wenn du diese Seite schließt.',
  'status.pageOnly': 'Dieser Browser sendet sie nur, solange diese Seite offen ist: Lass sie offen oder öffne sie wieder, wenn du Empfang hast.',

  'notes.title': 'Deine Nachrichten für {runner}',
  'note.waiting': 'Auf diesem Handy gespeichert',
  'note.sending': 'Wird gesendet',
  'note.sendingPercent': 'Wird gesendet ({percent} %)',
  'note.delivered': 'Zugestellt',
  'note.failed': 'Bitte prüfen',
  'note.unplayable': 'Nicht abspielbar',
  'note.unplayableReason':
    'Diese Nachricht ist angekommen, aber ihr Ton war nicht zu gebrauchen, deshalb wird {runner} sie nicht hören. Bitte nimm sie noch einmal auf.',
  'note.meta': '{time} · {seconds} s · von {from}',
  'note.heardAt': 'Gehört bei {marker}',
  'note.retry': 'Nochmal versuchen',
  'note.delete': 'Löschen',
  'note.confirmDelete': 'Diese Nachricht löschen? Sie hat {runner} noch nicht erreicht und lässt sich nicht wiederherstellen.',

  'mic.openInBrowser':
    'Wenn du diesen Link in einer anderen App geöffnet hast (Instagram, Facebook, WhatsApp …), tippe auf das Menü ••• und wähle „In Safari öffnen“ oder „Im Browser öffnen“.',
  'mic.insecure': 'Damit das Mikrofon funktioniert, muss diese Seite über einen sicheren Link (https) geöffnet sein.',
  'mic.noMicrophone': 'Dieser Browser kann das Mikrofon nicht benutzen.',
  'mic.noRecorder': 'Dieser Browser kann keinen Ton aufnehmen.',
  'mic.denied':
    'Das Mikrofon ist für diese Seite ausgeschaltet. Auf dem iPhone: Öffne Einstellungen › Safari › Mikrofon und wähle „Erlauben“ ' +
    '(und sieh unter Einstellungen › Datenschutz & Sicherheit › Mikrofon nach). Auf Android: Tippe auf das Symbol links neben der Adresse ' +
    'und wähle Berechtigungen › Mikrofon › Zulassen. Tippe dann noch einmal auf „Aufnehmen“.',
  'mic.notFound': 'Auf diesem Gerät ist kein Mikrofon zu finden. Schließ eins an oder schalte es ein und tippe dann noch einmal auf „Aufnehmen“.',
  'mic.busy':
    'Das Mikrofon wird gerade von einer anderen App benutzt (ein Anruf oder ein Sprachmemo?). Schließ diese App und tippe dann noch einmal auf „Aufnehmen“.',
  'mic.failed': 'Das Mikrofon ließ sich nicht starten ({name}). Lade die Seite neu und versuch es noch einmal.',
  'mic.unknownError': 'unbekannter Fehler',
  'record.cannotStart': 'Dieser Browser konnte die Aufnahme nicht starten ({name}). Versuch es mit Safari oder Chrome.',
  'record.cannotSave': 'Dieses Handy konnte die Aufnahme nicht speichern. Lade die Seite neu und versuch es noch einmal.',
  'record.partLost': 'Ein Teil dieser Aufnahme konnte auf diesem Handy nicht gespeichert werden.',
  'storage.low': 'Der Speicher deines Handys ist fast voll. Mach vor der Aufnahme etwas Platz, damit deine Nachricht bis zum Senden aufbewahrt werden kann.',

  'error.storageFull':
    'Der Speicher deines Handys ist voll, deshalb wurde die Aufnahme beendet. Was du schon aufgenommen hast, bleibt erhalten ' +
    'und kann gesendet werden. Um mehr aufzunehmen, mach zuerst Platz (lösche Fotos oder Videos).',
  'error.recordingMissing': 'Diese Aufnahme ist nicht mehr auf diesem Handy. Bitte nimm deine Nachricht noch einmal auf.',
  'failed.record': 'Die Aufnahme konnte nicht starten. Lade die Seite neu und versuch es noch einmal.',
  'failed.save': 'Diese Nachricht ließ sich nicht auf diesem Handy speichern. Versuch es noch einmal.',
  'failed.listen': 'Diese Aufnahme ließ sich nicht öffnen. Versuch es noch einmal oder nimm neu auf.',
  'failed.recordAgain': 'Diese Aufnahme ließ sich nicht von diesem Handy entfernen. Versuch es noch einmal.',
  'failed.retry': 'Diese Nachricht ließ sich nicht neu einreihen. Versuch es gleich noch einmal.',
  'failed.delete': 'Diese Nachricht ließ sich nicht von diesem Handy löschen. Versuch es noch einmal.',
  'failed.readNotes': 'Deine Nachrichten ließen sich nicht aus dem Speicher dieses Handys lesen. Lade die Seite neu, um sie zu sehen.',
  'failed.send': 'Das Senden wurde angehalten: Der Speicher dieses Handys ließ sich nicht lesen. Lade die Seite neu, um es noch einmal zu versuchen.',

  'send.chooseMarker': 'Wähle den Streckenpunkt, an dem {runner} deine Nachricht hören soll.',
  'send.addName': 'Gib deinen Namen ein, damit {runner} weiß, von wem sie ist.',
  'send.sectionLabel': 'Deine Nachricht',
  'outbox.recordingMissing': 'Die Aufnahme dieser Nachricht fehlt auf diesem Handy. Bitte nimm sie noch einmal auf.',
  'outbox.noConnection': 'Gerade gibt es keine Verbindung. Die Nachricht ist auf diesem Handy gespeichert und geht raus, sobald wieder eine da ist.',
  'outbox.serverBusy': 'Der Server ist gerade ausgelastet (Fehler {status}).',
  'outbox.notAccepted': 'Der Server konnte diese Nachricht nicht annehmen (Fehler {status}).',

  // Every wait explained (issue 21).
  'wait.soon': 'Nächster Versuch in weniger als einer Minute.',
  'wait.at': 'Nächster Versuch um {time} Uhr.',
  'wait.whenOnline': 'Nächster Versuch, sobald dieses Handy wieder online ist.',

  'refusal.link_not_found': 'Dieser Link funktioniert nicht mehr. Bitte den Läufer oder die Läuferin um einen neuen.',
  'refusal.link_full': 'Dieser Link hat die Höchstzahl an Nachrichten erreicht. Bitte {runner} um einen neuen Link.',
  'refusal.link_storage_full': 'Auf diesem Link ist kein Platz mehr für weitere Aufnahmen. Bitte {runner} um einen neuen Link.',
  'refusal.too_large': 'Diese Aufnahme ist zu groß zum Senden (höchstens {maxMb} MB). Bitte nimm eine kürzere Nachricht auf.',
  'refusal.not_audio': 'Diese Datei ist keine Sprachaufnahme, die wir abspielen können. Bitte nimm die Nachricht noch einmal auf.',
  'refusal.note_conflict': 'Unter der Kennung dieser Nachricht wurde schon eine andere Aufnahme gesendet. Es wurde nichts geändert.',
  'refusal.invalid_note_id': 'Die Kennung der Nachricht muss eine UUID sein, die der Recorder erzeugt hat.',
  'refusal.invalid_from': 'Bitte gib deinen Namen ein (1 bis {maxName} Zeichen), damit man weiß, von wem die Nachricht ist.',
  'refusal.unknown_marker': 'Bitte wähle einen Streckenpunkt aus der Liste.',
  'refusal.digest_required': 'Zum Senden fehlt die Prüfsumme der Aufnahme. Bitte lade die Seite neu und versuch es noch einmal.',
  'refusal.digest_mismatch': 'Die Aufnahme hat sich unterwegs verändert (ihre Prüfsumme stimmt nicht). Sie wird noch einmal gesendet.',
  'refusal.upload_interrupted': 'Das Senden wurde unterbrochen, bevor es fertig war. Die Nachricht wird noch einmal gesendet.',
  'refusal.upload_not_found': 'Der Server hat keinen unfertigen Teil dieser Nachricht. Sie wird vollständig neu gesendet.',
  'refusal.upload_busy': 'Der Server speichert noch einen früheren Versuch dieser Nachricht. Sie wird gleich noch einmal gesendet.',
  'refusal.mismatching-upload-offset':
    'Der Server hat einen anderen Teil dieser Nachricht als erwartet. Sie wird ab der Stelle weitergesendet, an der der Server aufgehört hat.',
  'refusal.completed-upload': 'Diese Nachricht ist schon vollständig angekommen.',
  'refusal.inconsistent-upload-length': 'Die Größe der Nachricht hat sich zwischen zwei Versuchen geändert. Bitte nimm sie noch einmal auf.',
  'refusal.not_partial_upload': 'Der Server hat nicht verstanden, wie diese Nachricht gesendet wurde. Bitte lade die Seite neu und versuch es noch einmal.',
  'refusal.rate_limited': 'Zu viele Anfragen in kurzer Zeit. Bitte warte einen Moment, dann werden deine Nachrichten noch einmal gesendet.',
  'refusal.address_rate_limited':
    'Aus diesem Netzwerk kamen in kurzer Zeit viele Nachrichten. Deine ist auf diesem Handy gespeichert und wird gleich noch einmal gesendet.',
  'refusal.too_many_open_uploads': 'Aus diesem Netzwerk werden gerade schon mehrere Nachrichten gesendet. Diese folgt gleich.',
  'refusal.shutting_down': 'Der Server startet gerade neu. Deine Nachricht bleibt auf deinem Handy und wird gleich noch einmal gesendet.',
  'refusal.server_error': 'Bei uns ist etwas schiefgelaufen. Deine Nachricht bleibt auf deinem Handy und wird noch einmal gesendet.',
  'refusal.storage_unavailable': 'Der Server erreicht seinen Speicher gerade nicht. Deine Nachricht bleibt auf deinem Handy und wird noch einmal gesendet.',
  'refusal.storage_full':
    'Der Server hat gerade keinen Platz, um Nachrichten zu speichern. Deine Nachricht bleibt auf deinem Handy und wird noch einmal gesendet.',
  'refusal.bad_request': 'Die Anfrage wurde nicht verstanden. Bitte lade die Seite neu und versuch es noch einmal.',
  'refusal.not_found': 'Das wurde nicht gefunden. Vielleicht ist der Link unvollständig.',
  'refusal.note_not_found': 'Diese Nachricht wurde nicht gefunden.',
  // Issue 19, the runner removes a note: a sender's phone sending it again is told why it stops.
  'refusal.note_removed': 'Die Läuferin oder der Läufer hat diese Nachricht entfernt, sie wird nicht noch einmal gesendet.',

  'keepsake.loading': 'Wird geladen...',
  'keepsake.eyebrow': 'Sprachnachrichten für',
  'keepsake.none': 'Hier sind noch keine Nachrichten geteilt.',
  'keepsake.from': 'Von {from}',
  'keepsake.audioLabel': 'Sprachnachricht von {from} bei {marker}',
  'keepsake.goneTitle': 'Diese Nachrichten sind nicht geteilt',
  'keepsake.gone': 'Diese Nachrichten sind nicht mehr geteilt, oder der Link ist unvollständig. Bitte den Läufer oder die Läuferin, sie noch einmal zu teilen.',
  'keepsake.unreachableTitle': 'Die Nachrichten lassen sich nicht laden',
  'keepsake.unreachable': 'Die Nachrichten lassen sich gerade nicht laden. Prüfe deine Verbindung und lade die Seite neu.',

  // Issue 36, the installed app: its start page (src/homeScreen/), and installing offered in the recorder (InstallOffer.tsx).
  'title.homeScreen': 'Deine Läufer · MileNotes',
  'home.title': 'Deine Läufer',
  'home.lead': 'Die Läufer, für die du auf diesem Handy Sprachnachrichten aufnimmst.',
  'home.empty': 'Noch niemand hier. Öffne den Link, den dir ein Läufer geschickt hat, dann erscheint er hier.',
  'home.offline': 'Du bist offline. Das ist die Liste auf diesem Handy; deine Nachrichten warten hier, bis wieder Netz da ist.',
  'home.race.upcoming': '{race} am {date}',
  'home.race.live': '{race} · läuft gerade',
  'home.race.past': '{race} · vorbei',
  'home.gone': 'Dieser Link funktioniert nicht mehr. Bitte {runner} um einen neuen.',
  'home.open': 'Für {runner} aufnehmen',
  'home.waiting.one': '{count} Nachricht wartet auf diesem Handy',
  'home.waiting.other': '{count} Nachrichten warten auf diesem Handy',
  'home.leaving': 'Verschwindet aus der Liste, sobald die Nachrichten gesendet sind.',
  'home.remove': 'Entfernen',
  'home.removeLabel': '{runner} aus dieser Liste entfernen',
  'home.confirmRemove': '{runner} aus dieser Liste entfernen? Öffnest du den Link wieder, steht der Eintrag wieder hier.',
  'home.confirmRemoveWaiting.one':
    '{count} Nachricht für {runner} ist noch nicht gesendet. Sie bleibt auf diesem Handy und wird trotzdem gesendet; danach verschwindet {runner} aus der Liste. {runner} entfernen?',
  'home.confirmRemoveWaiting.other':
    '{count} Nachrichten für {runner} sind noch nicht gesendet. Sie bleiben auf diesem Handy und werden trotzdem gesendet; danach verschwindet {runner} aus der Liste. {runner} entfernen?',
  'home.confirmRemoveGone.one':
    '{count} Nachricht für {runner} wartet auf diesem Handy, aber der Link funktioniert nicht mehr: Sie kann nicht gesendet werden. Löschen und {runner} aus der Liste entfernen?',
  'home.confirmRemoveGone.other':
    '{count} Nachrichten für {runner} warten auf diesem Handy, aber der Link funktioniert nicht mehr: Sie können nicht gesendet werden. Löschen und {runner} aus der Liste entfernen?',
  'home.removeFailed': '{runner} konnte nicht aus der Liste entfernt werden. Versuch es wieder, wenn du Netz hast.',
  'install.title': 'MileNotes auf diesem Handy behalten',
  'install.why':
    'Installiere MileNotes, dann erfährst du, wann {runner} deine Nachricht hört, und öffnest die Seite von {runner} über ihr Symbol, auch ohne Netz.',
  'install.button': 'MileNotes installieren',
  'install.notNow': 'Nicht jetzt',
  'install.iosWhy':
    'Damit du erfährst, wann {runner} deine Nachricht hört, lege MileNotes auf deinen Home-Bildschirm: Auf dem iPhone kann dich nur die App dort benachrichtigen.',
  'install.iosSteps': 'Tippe auf „Teilen“ und dann auf „Zum Home-Bildschirm“.',
  'install.iosWaiting.one': '{count} Nachricht, die noch auf diesem Handy wartet, wird aus Safari gesendet: Öffne diese Seite in Safari, bis sie gesendet ist.',
  'install.iosWaiting.other':
    '{count} Nachrichten, die noch auf diesem Handy warten, werden aus Safari gesendet: Öffne diese Seite in Safari, bis sie gesendet sind.',
  'push.heard.ask': 'Sag mir, wenn {runner} sie hört',
  'push.heard.on': 'Du erfährst es, wenn {runner} deine Nachrichten hört.',
  'push.turnOff': 'Ausschalten',
  'push.alert.ask': 'Sag mir, wenn {runner} etwa {minutes} Minuten von {marker} entfernt ist',
  'push.alert.on': 'Du erfährst es, wenn {runner} etwa {minutes} Minuten von {marker} entfernt ist.',
  'push.alert.cancel': 'Nicht mehr sagen',
  'push.installFirst':
    'Auf dem iPhone kommen Mitteilungen über MileNotes auf deinem Home-Bildschirm: Tippe auf Teilen, dann auf „Zum Home-Bildschirm“, und öffne es von dort.',
  'push.denied': 'Mitteilungen sind für diese Seite blockiert. Erlaube sie in den Einstellungen deines Browsers und versuch es noch einmal.',
  'push.failed': 'Die Mitteilungen ließen sich nicht einschalten. Bitte versuch es noch einmal.',
  'push.refusal.push_endpoint_refused': 'MileNotes kann diesem Browser keine Mitteilungen senden.',
  'push.refusal.push_link_full': 'Zu viele Handys wollen bei diesem Link Bescheid bekommen.',
  'push.refusal.push_phone_full': 'Dieses Handy bekommt schon bei zu vielen Links Bescheid. Schalte zuerst einige aus.',
  'push.refusal.device_unknown': 'Dieses Handy ist bei diesem Link noch nicht bekannt. Lade die Seite neu und versuche es dann noch einmal.',
  'push.refusal.link_phones_busy.one':
    'In der letzten Stunde haben viele neue Handys diesen Link geöffnet. Versuche es in etwa {count} Minute noch einmal. Deine Nachrichten erreichen {runner} trotzdem.',
  'push.refusal.link_phones_busy.other':
    'In der letzten Stunde haben viele neue Handys diesen Link geöffnet. Versuche es in etwa {count} Minuten noch einmal. Deine Nachrichten erreichen {runner} trotzdem.',
  'push.refusal.link_phones_full':
    'Dieser Link ist voll: Jedes Handy darauf hat schon eine Nachricht geschickt oder will Bescheid bekommen. Bitte {runner} um einen neuen Link. Deine Nachrichten erreichen {runner} trotzdem.',
  'push.refusal.progress_not_shared': '{runner} teilt den Fortschritt gerade nicht.',
  'push.refusal.marker_passed': '{runner} ist schon an {marker} vorbei.',
  'push.refusal.marker_too_near': '{runner} ist schon weniger als {minutes} Minuten von {marker} entfernt.',
};

export default de;
