import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { DetailsFields } from '../../../src/recorder/DetailsFields.js';
import { EstimateLines, type Eta } from '../../../src/recorder/Estimates.js';
import { expectedTimes, suggestedMarker } from '../../../src/recorder/estimates.js';
import { chooseLanguage, LANGUAGES, type Lang } from '../../../src/i18n/index.js';
import { raceClockTime } from '../../../src/recorder/raceTime.js';
import { LANGUAGE_RULES } from '../../../src/i18n/format.js';

const ZONE = 'America/Chicago';
// 10:41 in Chicago: the estimate is made now; Alex is expected at mile 19 in 3 minutes, mile 20 in 11.
const MADE = Date.parse('2026-10-11T15:41:00Z');
const MARKERS = ['mi-18', 'mi-19', 'mi-20', 'mi-21'].map((id) => ({ id, label: id, distanceMeters: 0 }));
const ESTIMATES = {
  madeAt: new Date(MADE).toISOString(),
  markers: [
    { id: 'mi-19', at: '2026-10-11T15:44:00Z' },
    { id: 'mi-20', at: '2026-10-11T15:52:00Z' },
    { id: 'mi-21', at: '2026-10-11T16:00:00Z' },
  ],
};
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '\n')
    .replaceAll('&#x27;', "'")
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
const eta = (now: number): Eta => {
  const times = expectedTimes(ESTIMATES);
  return { times, suggested: suggestedMarker(MARKERS, times, now), now, estimates: ESTIMATES };
};
const lines = (marker: string, now = MADE) =>
  text(renderToStaticMarkup(<EstimateLines runner="Camille Martin" marker={marker} markers={MARKERS} eta={eta(now)} timeZone={ZONE} />)).join(' ');
const options = (lang: Lang) => {
  const { times, suggested } = eta(MADE);
  const expectedAt = (id: string) => {
    const at = times.get(id);
    return at === undefined ? undefined : raceClockTime(at, ZONE, LANGUAGE_RULES[lang].clock);
  };
  const html = renderToStaticMarkup(
    <DetailsFields
      markers={MARKERS}
      marker="mi-20"
      name=""
      onMarker={() => {}}
      onName={() => {}}
      runner="Camille Martin"
      passed={new Set(['mi-18'])}
      expectedAt={expectedAt}
      suggested={suggested}
    />,
  );
  return [...html.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => m[1]!.replaceAll('&#x27;', "'"));
};

const WORDS: Record<Lang, { options: string[]; asOf: string; stale: string; suggested: string; tooNear: string }> = {
  en: {
    options: ['Choose where Camille Martin hears it', 'Mile 18 (passed)', 'Mile 19 · 10:44 AM', 'Mile 20 · 10:52 AM (suggested)', 'Mile 21 · 11:00 AM'],
    asOf: 'Expected times as of 10:41 AM.',
    stale: 'Expected times as of 10:41 AM, estimated 12 minutes ago.',
    suggested: 'Mile 20 is suggested: Camille Martin is expected there about 10:52 AM, late enough for a note sent now to arrive in time.',
    tooNear:
      'Camille Martin is expected at Mile 19 about 10:44 AM, likely before a note sent now reaches their phone. You can still send it: it will play as soon as it arrives. To be heard in time, choose Mile 20 or later.',
  },
  fr: {
    options: ["Choisissez où Camille Martin l'entendra", 'Mille 18 (passé)', 'Mille 19 · 10:44', 'Mille 20 · 10:52 (conseillé)', 'Mille 21 · 11:00'],
    asOf: 'Heures de passage prévues, calculées à 10:41.',
    stale: 'Heures de passage prévues, calculées à 10:41, il y a 12 minutes.',
    suggested: "Nous conseillons Mille 20\u00a0: on y attend Camille Martin vers 10:52, assez tard pour qu'un message envoyé maintenant arrive à temps.",
    tooNear:
      "On attend Camille Martin à Mille 19 vers 10:44, sans doute avant qu'un message envoyé maintenant n'arrive sur son téléphone. Vous pouvez quand même l'envoyer\u00a0: il sera lu dès son arrivée. Pour qu'il soit entendu à temps, choisissez Mille 20 ou plus loin.",
  },
  de: {
    options: ['Wähle, wo Camille Martin sie hört', 'Meile 18 (passiert)', 'Meile 19 · 10:44', 'Meile 20 · 10:52 (empfohlen)', 'Meile 21 · 11:00'],
    asOf: 'Erwartete Zeiten, Stand 10:41.',
    stale: 'Erwartete Zeiten, Stand 10:41, vor 12 Minuten geschätzt.',
    suggested: 'Empfohlen: Meile 20. Dort wird Camille Martin etwa um 10:52 erwartet, spät genug, damit eine jetzt gesendete Nachricht rechtzeitig ankommt.',
    tooNear:
      'Camille Martin wird etwa um 10:44 bei Meile 19 erwartet, wahrscheinlich bevor eine jetzt gesendete Nachricht auf dem Handy ankommt. Du kannst sie trotzdem senden: Sie wird abgespielt, sobald sie ankommt. Damit sie rechtzeitig zu hören ist, wähle Meile 20 oder später.',
  },
  es: {
    options: ['Elige dónde lo escuchará Camille Martin', 'Milla 18 (ya pasó)', 'Milla 19 · 10:44', 'Milla 20 · 10:52 (sugerido)', 'Milla 21 · 11:00'],
    asOf: 'Horas de paso previstas, calculadas a las 10:41.',
    stale: 'Horas de paso previstas, calculadas a las 10:41, hace 12 minutos.',
    suggested: 'Te sugerimos Milla 20: se espera a Camille Martin allí hacia las 10:52, con tiempo para que un mensaje enviado ahora llegue a tiempo.',
    tooNear:
      'Se espera a Camille Martin en Milla 19 hacia las 10:44, probablemente antes de que un mensaje enviado ahora llegue a su teléfono. Puedes enviarlo igualmente: sonará en cuanto llegue. Para que lo escuche a tiempo, elige Milla 20 o uno posterior.',
  },
};

describe.each(LANGUAGES)('the expected times on the recorder, in %s', (lang) => {
  afterAll(() => chooseLanguage('en'));

  it('should write each marker ahead with its time in the race’s zone, mark the suggestion, and keep passed markers as they were', async () => {
    await chooseLanguage(lang);
    expect(options(lang)).toEqual(WORDS[lang].options);
  });

  it('should say when the times were made, and how long ago once they are old', async () => {
    await chooseLanguage(lang);
    // Mile 18 is behind the runner: no time of its own, only the times' age under it.
    expect(lines('mi-18')).toBe(WORDS[lang].asOf);
    expect(lines('mi-18', MADE + 12.5 * 60_000)).toBe(WORDS[lang].stale);
  });

  it('should say why the suggested marker is suggested', async () => {
    await chooseLanguage(lang);
    expect(lines('mi-20')).toBe(`${WORDS[lang].asOf} ${WORDS[lang].suggested}`);
  });

  it('should warn, in plain words, when the chosen marker is likely passed before the note arrives, and name the first one in time', async () => {
    await chooseLanguage(lang);
    expect(lines('mi-19')).toBe(`${WORDS[lang].asOf} ${WORDS[lang].tooNear}`);
  });
});

describe('the lines under the picker', () => {
  it('should say nothing without estimates', () => {
    const none: Eta = { times: new Map(), now: MADE };
    expect(renderToStaticMarkup(<EstimateLines runner="Alex" marker="mi-20" markers={MARKERS} eta={none} timeZone={ZONE} />)).toBe('');
  });
});
