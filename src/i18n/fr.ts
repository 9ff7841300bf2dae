/**
 * Français: the catalogue, keys and placeholders as in en.ts. Vous, as French speaks to people it
 * does not know. The spaces before : ; ? ! % and inside « » are no-break spaces (U+00A0), so a
 * line never starts with the mark.
 */
import type { Catalogue, Notices } from './en.js';

/** Issue 36, ce qu'une notification affiche sur le téléphone (server/push/notice.ts ne lit que ce bloc). */
export const frNotices = {
  'notice.heard.mi': '{runner} a entendu votre message au mille {n}',
  'notice.heard.km': '{runner} a entendu votre message au kilomètre {n}',
  'notice.heard.finish': "{runner} a entendu votre message à l'arrivée",
  'notice.soon.mi': '{runner} est à environ {minutes} minutes du mille {n}',
  'notice.soon.km': '{runner} est à environ {minutes} minutes du kilomètre {n}',
  'notice.soon.finish': "{runner} est à environ {minutes} minutes de l'arrivée",
} satisfies Notices;

const fr: Catalogue = {
  'language.label': 'Langue',
  'title.recorder': 'Enregistrer un message vocal · MileNotes',
  'title.keepsake': 'Messages vocaux partagés · MileNotes',

  'date.race': '{day} {month} {year}',
  'date.firstDay': '1er',
  'month.1': 'janvier',
  'month.2': 'février',
  'month.3': 'mars',
  'month.4': 'avril',
  'month.5': 'mai',
  'month.6': 'juin',
  'month.7': 'juillet',
  'month.8': 'août',
  'month.9': 'septembre',
  'month.10': 'octobre',
  'month.11': 'novembre',
  'month.12': 'décembre',
  'marker.mile': 'Mille {n}',
  'marker.km': '{n} km',
  'marker.finish': 'Arrivée',

  // Issue 18, the race clock (RaceClock.tsx).
  'raceClock.upcoming': '{runner} court le {race} le {date}.',
  'raceClock.live': '{runner} court le {race} en ce moment.',
  'raceClock.past': 'La course de {runner} est terminée. Votre message sera gardé en souvenir.',
  'raceClock.date.1': '{weekday} {day} janvier {year}',
  'raceClock.date.2': '{weekday} {day} février {year}',
  'raceClock.date.3': '{weekday} {day} mars {year}',
  'raceClock.date.4': '{weekday} {day} avril {year}',
  'raceClock.date.5': '{weekday} {day} mai {year}',
  'raceClock.date.6': '{weekday} {day} juin {year}',
  'raceClock.date.7': '{weekday} {day} juillet {year}',
  'raceClock.date.8': '{weekday} {day} août {year}',
  'raceClock.date.9': '{weekday} {day} septembre {year}',
  'raceClock.date.10': '{weekday} {day} octobre {year}',
  'raceClock.date.11': '{weekday} {day} novembre {year}',
  'raceClock.date.12': '{weekday} {day} décembre {year}',
  'raceClock.weekday.0': 'dimanche',
  'raceClock.weekday.1': 'lundi',
  'raceClock.weekday.2': 'mardi',
  'raceClock.weekday.3': 'mercredi',
  'raceClock.weekday.4': 'jeudi',
  'raceClock.weekday.5': 'vendredi',
  'raceClock.weekday.6': 'samedi',

  'link.eyebrow': 'Un message vocal pour',
  'link.goneTitle': "Ce lien n'est pas actif",
  'link.gone': "Il a peut-être été mal recopié, ou il a été désactivé. Demandez qu'on vous le renvoie.",
  'link.unreachableTitle': 'Impossible de charger ce lien',
  'link.unreachable':
    'Nous ne pouvons pas charger ce lien pour le moment. Vérifiez votre connexion et rechargez la page ; une fois chargé, il marche aussi hors ligne.',

  'details.marker': 'Point du parcours',
  'details.markerPrompt': "Choisissez où {runner} l'entendra",
  'details.name': 'Votre nom',
  'details.namePlaceholder': "Pour qu'on sache de qui il vient",

  // Progression partagée par le coureur le jour de la course (issue 19 : src/recorder/Progress*.tsx).
  'progress.passed': 'Passage de {runner} à {marker} à {time}.',
  'progress.passedSuffix': ' (passé)',
  'progress.passedChosen': "{runner} a déjà passé {marker} : ce message sera lu dès qu'il arrivera sur le téléphone de {runner}.",

  'eta.option': '{marker} · vers {time}',
  'eta.suggestedSuffix': ' (conseillé)',
  'eta.asOf': 'Heures de passage prévues, calculées à {time}.',
  'eta.stale.one': 'Heures de passage prévues, calculées à {time}, il y a {count} minute.',
  'eta.stale.other': 'Heures de passage prévues, calculées à {time}, il y a {count} minutes.',
  'eta.suggested': "Nous conseillons {marker} : on y attend {runner} vers {time}, assez tard pour qu'un message envoyé maintenant arrive à temps.",
  'eta.tooNear':
    "On attend {runner} à {marker} vers {time}, sans doute avant qu'un message envoyé maintenant n'arrive sur son téléphone. Vous pouvez quand même l'envoyer : il sera lu dès son arrivée.",
  'eta.tooNearTry': "Pour qu'il soit entendu à temps, choisissez {marker} ou plus loin.",

  'record.record': 'Enregistrer',
  'record.hint': "Jusqu'à une minute. Parlez près du téléphone.",
  'record.recording': 'Enregistrement',
  'record.ofMinute': 'sur 1:00',
  'record.stop': 'Arrêter',
  'record.autoStop': "L'enregistrement s'arrête tout seul au bout d'une minute.",
  'record.recovered': "Nous avons gardé l'enregistrement interrompu. Écoutez-le, puis envoyez-le ou recommencez.",
  'record.yourNote': 'Votre message · {length}',
  'record.audioLabel': 'Votre message enregistré',
  'record.again': 'Recommencer',
  'record.send': 'Envoyer',
  'record.leftover': 'Vous avez un enregistrement inachevé, commencé à {time} (environ {seconds} s). Il est gardé sur ce téléphone.',
  'record.listenAndSend': 'Écouter et envoyer',

  'status.online': 'En ligne.',
  'status.onlineWaiting.one': "En ligne. {count} message en attente d'envoi.",
  'status.onlineWaiting.other': "En ligne. {count} messages en attente d'envoi.",
  'status.offline.one': 'Vous êtes hors ligne. {count} message attend sur ce téléphone.',
  'status.offline.other': 'Vous êtes hors ligne. {count} messages attendent sur ce téléphone.',
  'status.backgroundSync': 'Vos messages partiront tout seuls dès que vous serez de nouveau en ligne, même si vous fermez cette page.',
  'status.pageOnly': 'Ce navigateur ne les envoie que lorsque cette page est ouverte : gardez-la ouverte, ou rouvrez-la quand vous aurez du réseau.',

  'notes.title': 'Vos messages pour {runner}',
  'note.waiting': 'Gardé sur ce téléphone',
  'note.sending': 'Envoi en cours',
  'note.sendingPercent': 'Envoi en cours ({percent} %)',
  'note.delivered': 'Bien arrivé',
  'note.failed': 'À vérifier',
  'note.unplayable': 'Lecture impossible',
  'note.unplayableReason': "Ce message est arrivé, mais son audio est inutilisable : {runner} ne l'entendra donc pas. Merci de l'enregistrer à nouveau.",
  'note.meta': '{time} · {seconds} s · par {from}',
  'note.heardAt': 'Entendu : {marker}',
  'note.retry': 'Réessayer',
  'note.delete': 'Supprimer',
  'note.confirmDelete': "Supprimer ce message ? Il n'est pas encore parvenu à {runner} et ne pourra pas être récupéré.",

  'mic.openInBrowser':
    'Si vous avez ouvert ce lien dans une autre app (Instagram, Facebook, WhatsApp…), touchez le menu ••• et choisissez « Ouvrir dans Safari » ou « Ouvrir dans le navigateur ».',
  'mic.insecure': 'Pour utiliser le micro, cette page doit être ouverte par un lien sécurisé (https).',
  'mic.noMicrophone': 'Ce navigateur ne peut pas utiliser le micro.',
  'mic.noRecorder': 'Ce navigateur ne peut pas enregistrer de son.',
  'mic.denied':
    'Le micro est désactivé pour cette page. Sur iPhone : ouvrez Réglages › Safari › Microphone et choisissez Autoriser ' +
    "(et vérifiez Réglages › Confidentialité et sécurité › Microphone). Sur Android : touchez l'icône à gauche de l'adresse, " +
    'puis Autorisations › Micro › Autoriser. Touchez ensuite de nouveau « Enregistrer ».',
  'mic.notFound': "Aucun micro n'a été trouvé sur cet appareil. Branchez ou activez un micro, puis touchez de nouveau « Enregistrer ».",
  'mic.busy': 'Le micro est utilisé par une autre app (un appel, un mémo vocal ?). Fermez cette app, puis touchez de nouveau « Enregistrer ».',
  'mic.failed': "Le micro n'a pas pu démarrer ({name}). Rechargez la page et réessayez.",
  'mic.unknownError': 'erreur inconnue',
  'record.cannotStart': "Ce navigateur n'a pas pu lancer l'enregistrement ({name}). Essayez Safari ou Chrome.",
  'record.cannotSave': "Ce téléphone n'a pas pu garder l'enregistrement. Rechargez la page et réessayez.",
  'record.partLost': "Une partie de cet enregistrement n'a pas pu être gardée sur ce téléphone.",
  'storage.low': "Votre téléphone n'a presque plus de place. Libérez un peu d'espace avant d'enregistrer, pour que votre message soit gardé jusqu'à son envoi.",

  'error.storageFull':
    "La mémoire de votre téléphone est pleine, l'enregistrement s'est donc arrêté. Ce que vous avez déjà enregistré est gardé " +
    "et vous pouvez l'envoyer. Pour enregistrer davantage, libérez d'abord de la place (supprimez des photos ou des vidéos).",
  'error.recordingMissing': "Cet enregistrement n'est plus sur ce téléphone. Merci d'enregistrer à nouveau votre message.",
  'failed.record': "L'enregistrement n'a pas pu démarrer. Rechargez la page et réessayez.",
  'failed.save': "Ce message n'a pas pu être gardé sur ce téléphone. Réessayez.",
  'failed.listen': "Cet enregistrement n'a pas pu être ouvert. Réessayez, ou enregistrez à nouveau.",
  'failed.recordAgain': "Cet enregistrement n'a pas pu être retiré de ce téléphone. Réessayez.",
  'failed.retry': "Ce message n'a pas pu être remis dans la file d'envoi. Réessayez dans un instant.",
  'failed.delete': "Ce message n'a pas pu être supprimé de ce téléphone. Réessayez.",
  'failed.readNotes': "Vos messages n'ont pas pu être lus dans la mémoire de ce téléphone. Rechargez la page pour les voir.",
  'failed.send': "L'envoi s'est arrêté : la mémoire de ce téléphone n'a pas pu être lue. Rechargez la page pour réessayer.",

  'send.chooseMarker': 'Choisissez le point du parcours où {runner} entendra votre message.',
  'send.addName': 'Ajoutez votre nom pour que {runner} sache de qui il vient.',
  'send.sectionLabel': 'Votre message',
  'outbox.recordingMissing': "L'enregistrement de ce message manque sur ce téléphone. Merci de l'enregistrer à nouveau.",
  'outbox.noConnection': "Pas de connexion pour le moment. Le message est gardé sur ce téléphone et partira dès qu'il y en aura une.",
  'outbox.serverBusy': 'Le serveur est occupé (erreur {status}).',
  'outbox.notAccepted': "Le serveur n'a pas pu accepter ce message (erreur {status}).",

  // Every wait explained (issue 21).
  'wait.soon': "Nouvel essai dans moins d'une minute.",
  'wait.at': 'Nouvel essai à {time}.',
  'wait.whenOnline': 'Nouvel essai dès que ce téléphone sera de nouveau en ligne.',

  'refusal.link_not_found': 'Ce lien ne marche plus. Demandez-en un nouveau au coureur ou à la coureuse.',
  'refusal.link_full': 'Ce lien a atteint sa limite de messages. Demandez un nouveau lien à {runner}.',
  'refusal.link_storage_full': "Ce lien n'a plus de place pour d'autres enregistrements. Demandez un nouveau lien à {runner}.",
  'refusal.too_large': "Cet enregistrement est trop lourd pour être envoyé (la limite est de {maxMb} Mo). Merci d'enregistrer un message plus court.",
  'refusal.not_audio': "Ce fichier n'est pas un enregistrement vocal que nous pouvons lire. Merci d'enregistrer à nouveau le message.",
  'refusal.note_conflict': "Un autre enregistrement a déjà été envoyé avec l'identifiant de ce message. Rien n'a été modifié.",
  'refusal.invalid_note_id': "L'identifiant du message doit être un UUID créé par l'enregistreur.",
  'refusal.invalid_from': "Indiquez votre nom (de 1 à {maxName} caractères) pour qu'on sache de qui vient le message.",
  'refusal.unknown_marker': 'Choisissez un point du parcours dans la liste.',
  'refusal.digest_required': "Il manque la somme de contrôle de l'enregistrement. Rechargez la page et réessayez.",
  'refusal.digest_mismatch': "L'enregistrement a changé en route (sa somme de contrôle ne correspond pas). Il sera renvoyé.",
  'refusal.upload_interrupted': "L'envoi a été coupé avant la fin. Il sera refait.",
  'refusal.upload_not_found': "Le serveur n'a aucune partie en attente de ce message. Il sera envoyé en entier.",
  'refusal.upload_busy': 'Le serveur enregistre encore un essai précédent de ce message. Il sera renvoyé dans un instant.',
  'refusal.mismatching-upload-offset': "Le serveur n'a pas la partie de ce message qu'on attendait. L'envoi reprendra là où le serveur s'est arrêté.",
  'refusal.completed-upload': 'Ce message est déjà arrivé en entier.',
  'refusal.inconsistent-upload-length': "La taille du message a changé entre deux essais. Merci de l'enregistrer à nouveau.",
  'refusal.not_partial_upload': "Le serveur n'a pas compris comment ce message a été envoyé. Rechargez la page et réessayez.",
  'refusal.rate_limited': 'Trop de demandes en peu de temps. Patientez un instant ; vos messages seront renvoyés.',
  'refusal.address_rate_limited':
    'Beaucoup de messages sont partis de ce réseau en peu de temps. Le vôtre est gardé sur ce téléphone et sera renvoyé sous peu.',
  'refusal.too_many_open_uploads': 'Plusieurs messages partent déjà de ce réseau. Celui-ci suivra dans un instant.',
  'refusal.shutting_down': 'Le serveur redémarre. Votre message reste sur votre téléphone et sera renvoyé dans un instant.',
  'refusal.server_error': 'Un problème est survenu de notre côté. Votre message reste sur votre téléphone et sera renvoyé.',
  'refusal.storage_unavailable': 'Le serveur ne peut pas joindre son stockage pour le moment. Votre message reste sur votre téléphone et sera renvoyé.',
  'refusal.storage_full': 'Le serveur n’a plus de place pour enregistrer des messages pour le moment. Votre message reste sur votre téléphone et sera renvoyé.',
  'refusal.bad_request': "La demande n'a pas été comprise. Rechargez la page et réessayez.",
  'refusal.not_found': 'Introuvable. Le lien est peut-être incomplet.',
  'refusal.note_not_found': 'Ce message est introuvable.',
  // Issue 19, the runner removes a note: a sender's phone sending it again is told why it stops.
  'refusal.note_removed': 'La personne qui court a retiré ce message : il ne sera pas renvoyé.',

  'keepsake.loading': 'Chargement...',
  'keepsake.eyebrow': 'Messages vocaux pour',
  'keepsake.none': "Aucun message n'est encore partagé ici.",
  'keepsake.from': 'De la part de {from}',
  'keepsake.audioLabel': 'Message vocal de la part de {from}, {marker}',
  'keepsake.goneTitle': 'Ces messages ne sont pas partagés',
  'keepsake.gone': 'Ces messages ne sont plus partagés, ou le lien est incomplet. Demandez au coureur ou à la coureuse de les partager à nouveau.',
  'keepsake.unreachableTitle': 'Impossible de charger ces messages',
  'keepsake.unreachable': 'Nous ne pouvons pas charger ces messages pour le moment. Vérifiez votre connexion et rechargez la page.',

  // Issue 36, the installed app: its start page (src/homeScreen/), and installing offered in the recorder (InstallOffer.tsx).
  'title.homeScreen': 'Vos coureurs · MileNotes',
  'home.title': 'Vos coureurs',
  'home.lead': 'Les coureurs pour qui vous enregistrez des messages vocaux sur ce téléphone.',
  'home.empty': "Aucun coureur pour l'instant. Ouvrez le lien qu'un coureur vous a envoyé, et il apparaîtra ici.",
  'home.offline': 'Vous êtes hors ligne. Voici la liste gardée sur ce téléphone ; vos messages attendent ici le retour du réseau.',
  'home.race.upcoming': '{race}, le {date}',
  'home.race.live': '{race} · en cours',
  'home.race.past': '{race} · terminé',
  'home.gone': 'Ce lien ne fonctionne plus. Demandez-en un nouveau à {runner}.',
  'home.open': 'Enregistrer pour {runner}',
  'home.waiting.one': '{count} message en attente sur ce téléphone',
  'home.waiting.other': '{count} messages en attente sur ce téléphone',
  'home.leaving': 'Quittera cette liste une fois ses messages envoyés.',
  'home.remove': 'Retirer',
  'home.removeLabel': 'Retirer {runner} de cette liste',
  'home.confirmRemove': "Retirer {runner} de cette liste ? Rouvrir son lien l'y remettra.",
  'home.confirmRemoveWaiting.one':
    "{count} message pour {runner} n'est pas encore parti. Il reste sur ce téléphone et sera quand même envoyé ; {runner} quittera la liste ensuite. Retirer {runner} de la liste ?",
  'home.confirmRemoveWaiting.other':
    '{count} messages pour {runner} ne sont pas encore partis. Ils restent sur ce téléphone et seront quand même envoyés ; {runner} quittera la liste ensuite. Retirer {runner} de la liste ?',
  'home.confirmRemoveGone.one':
    '{count} message pour {runner} attend sur ce téléphone, mais le lien ne fonctionne plus : il ne peut pas partir. Le supprimer et retirer {runner} de la liste ?',
  'home.confirmRemoveGone.other':
    '{count} messages pour {runner} attendent sur ce téléphone, mais le lien ne fonctionne plus : ils ne peuvent pas partir. Les supprimer et retirer {runner} de la liste ?',
  'home.removeFailed': "{runner} n'a pas pu être retiré de la liste. Réessayez quand vous aurez du réseau.",
  'install.title': 'Gardez MileNotes sur ce téléphone',
  'install.why': 'Installez MileNotes pour savoir quand {runner} entend votre message, et pour rouvrir la page de {runner} depuis son icône, même sans réseau.',
  'install.button': 'Installer MileNotes',
  'install.notNow': 'Plus tard',
  'install.iosWhy':
    "Pour savoir quand {runner} entend votre message, ajoutez MileNotes à votre écran d'accueil : sur iPhone, seule l'app qui s'y trouve peut vous prévenir.",
  'install.iosSteps': "Touchez Partager, puis « Sur l'écran d'accueil ».",
  'install.iosWaiting.one':
    "{count} message qui attend encore sur ce téléphone partira depuis Safari : gardez cette page ouverte dans Safari jusqu'à son envoi.",
  'install.iosWaiting.other':
    "{count} messages qui attendent encore sur ce téléphone partiront depuis Safari : gardez cette page ouverte dans Safari jusqu'à leur envoi.",
  'push.heard.ask': "Prévenez-moi quand {runner} l'entend",
  'push.heard.on': 'Vous serez prévenu quand {runner} entendra vos messages.',
  'push.turnOff': 'Désactiver',
  'push.alert.ask': 'Prévenez-moi quand {runner} sera à environ {minutes} minutes de {marker}',
  'push.alert.on': 'Vous serez prévenu quand {runner} sera à environ {minutes} minutes de {marker}.',
  'push.alert.cancel': 'Ne plus me prévenir',
  'push.installFirst':
    "Sur iPhone, les notifications passent par MileNotes sur votre écran d'accueil : touchez Partager, puis « Sur l'écran d'accueil », et ouvrez-le depuis là.",
  'push.denied': 'Les notifications sont bloquées pour ce site. Autorisez-les dans les réglages de votre navigateur, puis réessayez.',
  'push.failed': "Les notifications n'ont pas pu être activées. Veuillez réessayer.",
  'push.refusal.push_endpoint_refused': 'MileNotes ne peut pas envoyer de notifications à ce navigateur.',
  'push.refusal.push_link_full': 'Trop de téléphones ont demandé à être prévenus sur ce lien.',
  'push.refusal.push_phone_full': "Ce téléphone est déjà prévenu sur trop de liens. Désactivez-en d'abord quelques-uns.",
  'push.refusal.device_unknown': "Ce téléphone n'est pas encore connu sur ce lien. Rechargez la page, puis réessayez.",
  'push.refusal.link_phones_busy.one':
    'Beaucoup de nouveaux téléphones ont ouvert ce lien dans la dernière heure. Réessayez dans environ {count} minute. Vos messages parviennent quand même à {runner}.',
  'push.refusal.link_phones_busy.other':
    'Beaucoup de nouveaux téléphones ont ouvert ce lien dans la dernière heure. Réessayez dans environ {count} minutes. Vos messages parviennent quand même à {runner}.',
  'push.refusal.link_phones_full':
    'Ce lien est complet : chaque téléphone qui y figure a déjà envoyé un message ou demandé à être prévenu. Demandez un nouveau lien à {runner}. Vos messages parviennent quand même à {runner}.',
  'push.refusal.progress_not_shared': '{runner} ne partage pas sa progression en ce moment.',
  'push.refusal.marker_passed': '{runner} a déjà passé {marker}.',
  'push.refusal.marker_too_near': '{runner} est déjà à moins de {minutes} minutes de {marker}.',
};

export default fr;
