/**
 * The recorder in the sender's language, in Debian's Chromium against the real server:
 * the browser's language picks it, the menu changes it and the phone keeps the choice, offline
 * too. Screenshots at 390x844 go to test-results/screenshots/recorder-<lang>.png for a person to look at.
 */
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from '@playwright/test';
import { refusal } from '../../server/http/refusals';
import { expect, speechWav, startServer, test, type RunningServer } from './fixtures';
import { englishLeft } from './support/english';
import { launchPhone, noteStates, serverNotes, waitForElapsed } from '../../kit/browser/recorder';
import { waitForControllingWorker } from './support/worker';

const SCREENSHOTS = path.join(process.cwd(), 'test-results', 'screenshots');

/** A few words of each language, as a person reads them on the screen; region tags as phones send them. */
const LANGUAGES = [
  {
    locale: 'de-AT',
    lang: 'de',
    menu: 'Deutsch',
    menuLabel: 'Sprache',
    eyebrow: 'Sprachnachricht für',
    date: 'Berlin Marathon · 21. September 2025',
    marker: 'Streckenpunkt',
    prompt: 'Wähle, wo Alex sie hört',
    mile: 'Meile 20',
    km: '20 km',
    finish: 'Ziel',
    name: 'Dein Name',
    record: 'Aufnehmen',
    hint: 'Bis zu einer Minute. Sprich nah am Handy.',
    stop: 'Stopp',
    send: 'Senden',
    delivered: 'Sicher bei uns',
    waitingForPhone: 'Wartet darauf, dass das Handy von Alex sie abholt.',
    notes: 'Deine Nachrichten für Alex',
    from: /· von Oma$/,
    online: 'Online.',
    title: 'Sprachnachricht aufnehmen · MileNotes',
    waiting: 'Auf diesem Handy gespeichert',
    failed: 'Bitte prüfen',
    full: 'Dieser Link hat die Höchstzahl an Nachrichten erreicht. Bitte Alex um einen neuen Link.',
    held: /^Aus diesem Netzwerk kamen in kurzer Zeit viele Nachrichten\. Deine ist auf diesem Handy gespeichert und wird gleich noch einmal gesendet\. Nächster Versuch um \d{1,2}:\d\d Uhr\.$/,
  },
  {
    locale: 'es-MX',
    lang: 'es',
    menu: 'Español',
    menuLabel: 'Idioma',
    eyebrow: 'Graba un mensaje de voz para',
    date: 'Berlin Marathon · 21 de septiembre de 2025',
    marker: 'Punto del recorrido',
    prompt: 'Elige dónde lo escuchará Alex',
    mile: 'Milla 20',
    km: '20 km',
    finish: 'Meta',
    name: 'Tu nombre',
    record: 'Grabar',
    hint: 'Hasta un minuto. Habla cerca del teléfono.',
    stop: 'Detener',
    send: 'Enviar',
    delivered: 'A salvo con nosotros',
    waitingForPhone: 'Esperando a que el teléfono de Alex lo recoja.',
    notes: 'Tus mensajes para Alex',
    from: /· de Oma$/,
    online: 'Con conexión.',
    title: 'Graba un mensaje de voz · MileNotes',
    waiting: 'Guardado en este teléfono',
    failed: 'Necesita atención',
    full: 'Este enlace llegó a su límite de mensajes. Pídele a Alex un enlace nuevo.',
    held: /^Se enviaron muchos mensajes desde esta red en poco tiempo\. Tu mensaje está guardado en este teléfono y se enviará de nuevo en breve\. Se volverá a intentar a las \d{1,2}:\d\d\.$/,
  },
  {
    locale: 'fr-CA',
    lang: 'fr',
    menu: 'Français',
    menuLabel: 'Langue',
    eyebrow: 'Un message vocal pour',
    date: 'Berlin Marathon · 21 septembre 2025',
    marker: 'Point du parcours',
    prompt: "Choisissez où Alex l'entendra",
    mile: 'Mille 20',
    km: '20 km',
    finish: 'Arrivée',
    name: 'Votre nom',
    record: 'Enregistrer',
    hint: "Jusqu'à une minute. Parlez près du téléphone.",
    stop: 'Arrêter',
    send: 'Envoyer',
    delivered: 'En sécurité chez nous',
    waitingForPhone: "Alex ne l'a pas encore reçu sur son téléphone.",
    notes: 'Vos messages pour Alex',
    from: /· par Oma$/,
    online: 'En ligne.',
    title: 'Enregistrer un message vocal · MileNotes',
    waiting: 'Gardé sur ce téléphone',
    failed: 'À vérifier',
    full: 'Ce lien a atteint sa limite de messages. Demandez un nouveau lien à Alex.',
    held: /^Beaucoup de messages sont partis de ce réseau en peu de temps\. Le vôtre est gardé sur ce téléphone et sera renvoyé sous peu\. Nouvel essai à \d{1,2}:\d\d\.$/,
  },
] as const;

/** Opens the link and waits until the worker controls the page and the screen speaks `lang`. */
async function openIn(context: BrowserContext, server: RunningServer, token: string, lang: string, record: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/r/${token}`);
  await waitForControllingWorker(page);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
  await expect(page.getByRole('button', { name: record, exact: true })).toBeVisible();
  return page;
}

/** Content wider than the phone's screen: what longer words break first. */
async function expectFitsTheScreen(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Note uploads (PUT .../notes/<id>); the heard-status GET shares the path and is let through. */
const NOTE_PUT = /\/api\/r\/[^/]+\/notes\//;

/** Records a note of about two seconds in the language's words and sends it. */
async function recordAndSend(page: Page, words: (typeof LANGUAGES)[number]): Promise<void> {
  await page.getByRole('button', { name: words.record, exact: true }).click();
  await waitForElapsed(page, 2);
  await page.getByRole('button', { name: words.stop, exact: true }).click();
  await page.getByRole('button', { name: words.send, exact: true }).click();
}

test.describe('the recorder in the language of the browser', () => {
  // One note per link: the second is refused by the real server as a full link (link_full).
  let server: RunningServer;
  // Three recordings of two seconds, an accessibility scan and a language switch per test, on a shared 2-core machine.
  test.describe.configure({ timeout: 180_000 });
  test.beforeAll(async () => {
    server = await startServer({ LINK_MAX_NOTES: '1' });
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  for (const words of LANGUAGES) {
    test(`a browser set to ${words.locale} gets the recorder in ${words.menu}: a note delivered, a full link and an address limit said in it, nothing English left`, async () => {
      const token = await server.createLink('Alex', 'berlin-2025');
      const { context } = await launchPhone(await speechWav(), undefined, { locale: words.locale });
      try {
        const page = await openIn(context, server, token, words.lang, words.record);
        // Runner and race names as given; the rest in the language.
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alex');
        await expect(page.getByText(words.eyebrow, { exact: true })).toBeVisible();
        await expect(page.getByText(words.date, { exact: true })).toBeVisible();
        await expect(page.getByRole('combobox', { name: words.menuLabel })).toHaveValue(words.lang);
        await expect(page.getByText(words.hint, { exact: true })).toBeVisible();
        await expect(page.getByTestId('status-line')).toHaveText(words.online);
        await expect(page).toHaveTitle(words.title);
        const markers = page.getByLabel(words.marker);
        await expect(markers.locator('option').first()).toHaveText(words.prompt);
        for (const label of [words.mile, words.km, words.finish]) await expect(markers.locator('option', { hasText: label }).first()).toHaveText(label);
        expect(await englishLeft(page, words.lang)).toEqual([]);
        expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
        await expectFitsTheScreen(page);
        await page.screenshot({ path: path.join(SCREENSHOTS, `recorder-${words.lang}-390x844.png`) });

        // Send before choosing: the sentences that ask for a marker and a name.
        await page.getByRole('button', { name: words.record, exact: true }).click();
        await waitForElapsed(page, 2);
        await page.getByRole('button', { name: words.stop, exact: true }).click();
        await expect(page.getByRole('button', { name: words.send, exact: true })).toBeVisible();
        await page.getByRole('button', { name: words.send, exact: true }).click();
        await expect(page.getByRole('alert')).toContainText('Alex');
        expect(await englishLeft(page, words.lang)).toEqual([]);
        await markers.selectOption({ label: words.mile });
        await page.getByRole('button', { name: words.send, exact: true }).click();
        await expect(page.getByRole('alert')).toContainText('Alex');
        expect(await englishLeft(page, words.lang)).toEqual([]);
        await page.getByLabel(words.name, { exact: true }).fill('Oma');
        await expectFitsTheScreen(page);
        await page.screenshot({ path: path.join(SCREENSHOTS, `recorder-${words.lang}-review-390x844.png`) });
        await page.getByRole('button', { name: words.send, exact: true }).click();
        await expect(noteStates(page)).toHaveText([words.delivered]);
        await expect(page.getByTestId('note-waiting-phone')).toHaveText([words.waitingForPhone]);
        const note = page.getByTestId('note');
        await expect(note.locator('strong')).toHaveText(words.mile);
        await expect(note.locator('.rec-note-meta')).toHaveText(words.from);
        await expect(page.getByRole('heading', { level: 2 })).toHaveText(words.notes);
        expect(await serverNotes(server, token)).toMatchObject([{ marker: 'mi-20', from: 'Oma' }]);

        // The link holds one note: the real server refuses the next as full, said in the language.
        await recordAndSend(page, words);
        await expect(noteStates(page)).toHaveText([words.delivered, words.failed]);
        await expect(page.getByTestId('note-reason')).toHaveText([words.full]);

        // An address limit (the server's own 429, answered here so the link's quota is not what
        // stops it): the note waits, and says why and when it is tried again, in the language.
        const limited = refusal.address_rate_limited(300);
        await context.route(NOTE_PUT, async (route) =>
          route.request().method() === 'PUT'
            ? route.fulfill({
                status: limited.statusCode,
                headers: limited.headers,
                contentType: 'application/json',
                body: JSON.stringify({ error: limited.code, message: limited.message }),
              })
            : route.fallback(),
        );
        await recordAndSend(page, words);
        await expect(noteStates(page)).toHaveText([words.delivered, words.failed, words.waiting]);
        await expect(page.getByTestId('note-reason')).toHaveText([words.full, words.held]);
        expect(await englishLeft(page, words.lang)).toEqual([]);
        expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
        await expectFitsTheScreen(page);
        await page.screenshot({ path: path.join(SCREENSHOTS, `recorder-${words.lang}-notes-390x844.png`), fullPage: true });

        // Words kept as keys, not sentences: switching language re-says every one of them.
        await page.getByRole('combobox', { name: words.menuLabel }).selectOption({ label: 'English' });
        await expect(page.getByTestId('note-reason')).toHaveText([
          'This link has reached its limit of notes. Ask Alex for a new link.',
          /^Many notes were sent from this network in a short time\. .* It will be tried again at \d{1,2}:\d\d [AP]M\.$/,
        ]);
      } finally {
        await context.close();
      }
    });
  }

  test('an unknown link says so in the language of the browser', async () => {
    const { context } = await launchPhone(await speechWav(), undefined, { locale: 'de-DE' });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/r/${'x'.repeat(32)}`);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dieser Link ist nicht aktiv');
      await expect(page.getByRole('alert')).toContainText('Lass ihn dir noch einmal schicken.');
      await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    } finally {
      await context.close();
    }
  });
});

test.describe('the language menu', () => {
  test("switches the recorder at once, and the phone keeps the choice over the browser's language across reloads", async ({ server }) => {
    const token = await server.createLink('Alex', 'berlin-2025');
    const { context } = await launchPhone(await speechWav(), undefined, { locale: 'de-DE' });
    try {
      const page = await openIn(context, server, token, 'de', 'Aufnehmen');
      const menu = page.getByRole('combobox', { name: 'Sprache' });
      await expect(menu.locator('option')).toHaveText(['English', 'Deutsch', 'Español', 'Français']);
      await menu.selectOption({ label: 'Français' });
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toBeVisible();
      await expect(page.getByText('Berlin Marathon · 21 septembre 2025', { exact: true })).toBeVisible();
      await expect(page).toHaveTitle('Enregistrer un message vocal · MileNotes');

      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toBeVisible();
      await expect(page.getByRole('combobox', { name: 'Langue' })).toHaveValue('fr');

      // English, chosen on a German phone, stays English.
      await page.getByRole('combobox', { name: 'Langue' }).selectOption({ label: 'English' });
      await expect(page.getByRole('button', { name: 'Record', exact: true })).toBeVisible();
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
      await expect(page.getByRole('button', { name: 'Record', exact: true })).toBeVisible();
      await expect(page.getByText('Berlin Marathon · Sep 21, 2025', { exact: true })).toBeVisible();
    } finally {
      await context.close();
    }
  });

  test('works offline after one visit: the recorder opens in its language and can switch to any other', async ({ server }) => {
    const token = await server.createLink('Alex', 'berlin-2025');
    const { context } = await launchPhone(await speechWav(), undefined, { locale: 'es-ES' });
    try {
      const page = await openIn(context, server, token, 'es', 'Grabar');
      await context.setOffline(true);
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('lang', 'es');
      await expect(page.getByRole('button', { name: 'Grabar', exact: true })).toBeVisible();
      await expect(page.getByTestId('status-line')).toHaveText(/^Estás sin conexión\./);
      // German was never asked for on this phone: the worker keeps every language.
      await page.getByRole('combobox', { name: 'Idioma' }).selectOption({ label: 'Deutsch' });
      await expect(page.getByRole('button', { name: 'Aufnehmen', exact: true })).toBeVisible();
      await expect(page.getByTestId('status-line')).toHaveText(/^Du bist offline\./);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'recorder-de-offline-390x844.png') });
    } finally {
      await context.setOffline(false);
      await context.close();
    }
  });
});

test.describe('the first visit', () => {
  test("downloads only the browser's language, asked for by the shell beside the recorder's files, not after them", async ({ server }) => {
    const token = await server.createLink('Alex', 'berlin-2025');
    const { context } = await launchPhone(await speechWav(), undefined, { locale: 'fr-FR' });
    try {
      const page = await context.newPage();
      // The page's own requests, with the scripts that asked (the worker's install fetches every language, apart).
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      const languages: Array<{ url: string; askedFrom: string[] }> = [];
      cdp.on('Network.requestWillBeSent', ({ request, initiator }) => {
        if (!/\/assets\/lang-/.test(request.url)) return;
        const askedFrom: string[] = [];
        for (let stack = initiator.stack; stack; stack = stack.parent) askedFrom.push(...stack.callFrames.map((frame) => new URL(frame.url).pathname));
        languages.push({ url: new URL(request.url).pathname, askedFrom });
      });
      await page.goto(`${server.url}/r/${token}`);
      await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toBeVisible();
      expect(languages.map((l) => l.url)).toEqual([expect.stringMatching(/^\/assets\/lang-fr-[\w-]+\.js$/)]);
      // Asked by the shell's script while the recorder's chunk downloads, not by that chunk once it has run.
      expect(languages[0]!.askedFrom.some((url) => /^\/assets\/index-/.test(url))).toBe(true);
      expect(languages[0]!.askedFrom.filter((url) => /^\/assets\/recorder-/.test(url))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
