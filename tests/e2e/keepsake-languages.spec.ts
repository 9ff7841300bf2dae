/**
 * The keepsake page and the sender's 'heard' line in the sender's language, in real
 * Chromium against the real server, its runners signed in with a stand-in for Apple. Screenshots
 * at 390x844 go to test-results/screenshots/keepsake-<lang>-390x844.png.
 */
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { speechWav } from '../../stand-ins/speech';
import { launchPhone, noteStates, waitForElapsed } from '../../kit/browser/recorder';
import { UPCOMING_RACE } from '../../kit/races';
import { enterRace } from '../../kit/runnerApi';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';
import { waitForControllingWorker } from './support/worker';

const SCREENSHOTS = path.join(process.cwd(), 'test-results', 'screenshots');

let world: RunnerWorld;

test.beforeAll(async () => {
  world = await startRunnerWorld();
});
test.afterAll(async () => {
  await world?.stop();
});

async function expectFitsTheScreen(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

test.describe('the keepsake page in the language of the browser', () => {
  test.use({ locale: 'fr-FR' });

  test('shows a shared note in French, names as given, and switches to German from its menu', async ({ page }) => {
    const { session, entry } = await world.runnerWithNote();
    const share = await world.client(session).POST('/api/shares', { body: { entryId: entry.id } });
    expect(share.response.status).toBe(201);

    await page.goto(share.data!.url);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alex');
    await expect(page.getByText('Messages vocaux pour', { exact: true })).toBeVisible();
    await expect(page.getByText('Chicago Marathon · 11 octobre 2099', { exact: true })).toBeVisible();
    const note = page.getByRole('listitem');
    await expect(note.getByText('Mille 13', { exact: true })).toBeVisible();
    await expect(note.getByText('De la part de Sam')).toBeVisible();
    await expect(note.locator('audio')).toHaveAccessibleName('Message vocal de la part de Sam, Mille 13');
    await expect(page).toHaveTitle('Messages vocaux partagés · MileNotes');
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await expectFitsTheScreen(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'keepsake-fr-390x844.png') });

    await page.getByRole('combobox', { name: 'Langue' }).selectOption({ label: 'Deutsch' });
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(note.getByText('Meile 13', { exact: true })).toBeVisible();
    await expect(note.getByText('Von Sam')).toBeVisible();
    await expect(page.getByText('Chicago Marathon · 11. Oktober 2099', { exact: true })).toBeVisible();
    await expectFitsTheScreen(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'keepsake-de-390x844.png') });
  });

  test('says in French that notes are no longer shared', async ({ page }) => {
    const { session, entry } = await world.runnerWithNote();
    const share = await world.client(session).POST('/api/shares', { body: { entryId: entry.id } });
    expect((await world.client(session).DELETE('/api/shares/{id}', { params: { path: { id: share.data!.id } } })).response.status).toBe(204);

    await page.goto(share.data!.url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ces messages ne sont pas partagés');
    await expect(page.getByRole('alert')).toHaveText(/Demandez au coureur ou à la coureuse de les partager à nouveau\.$/);
  });
});

test("the sender's recorder says where the runner heard the note, in the sender's language", async () => {
  const session = await world.signIn();
  const entry = await enterRace(world.client(session), UPCOMING_RACE, 'Alex');
  const { context } = await launchPhone(await speechWav(), undefined, { locale: 'es-ES' });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(entry.link.url);
    await waitForControllingWorker(page);
    await page.getByLabel('Punto del recorrido').selectOption({ label: 'Milla 13' });
    await page.getByLabel('Tu nombre', { exact: true }).fill('Sam');
    await page.getByRole('button', { name: 'Grabar', exact: true }).click();
    await waitForElapsed(page, 2);
    await page.getByRole('button', { name: 'Detener', exact: true }).click();
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect(noteStates(page)).toHaveText(['A salvo con nosotros']);

    const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
    expect(
      (
        await world
          .client(session)
          .POST('/api/notes/{id}/played', { params: { path: { id: noteId } }, body: { playedAt: new Date().toISOString(), marker: 'mi-13' } })
      ).response.status,
    ).toBe(200);
    await page.reload();
    await expect(page.getByTestId('note-heard')).toHaveText('Escuchado en: Milla 13');
  } finally {
    await context.close();
  }
});
