/**
 * A link that took its new phones of the hour, end to end in Chromium: a friend's phone opens it
 * after two others did (LINK_NEW_PHONES_PER_HOUR=2 here), records and sends a note, which goes, and
 * taps "Tell me when Alex hears it": the page says, in the friend's language, when to try again
 * (from the refusal's Retry-After) and that the notes still go. Nothing is subscribed.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, request, test } from '@playwright/test';
import { startPushService, type PushServiceStandIn } from '../../stand-ins/pushService';
import { speechWav } from '../../stand-ins/speech';
import { fillDetails, launchPhone, noteStates, openRecorder, record } from '../../kit/browser/recorder';
import { UPCOMING_RACE } from '../../kit/races';
import { standInPushManager } from './support/push';
import { screenshot } from './support/screenshot';
import { enterRace } from '../../kit/runnerApi';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

let service: PushServiceStandIn;
let world: RunnerWorld;

test.beforeAll(async () => {
  service = await startPushService();
  world = await startRunnerWorld({
    PUSH_HOSTS: service.host,
    VAPID_SUBJECT: 'mailto:ops@milenotes.test',
    NODE_EXTRA_CA_CERTS: service.caFile,
    LINK_NEW_PHONES_PER_HOUR: '2',
  });
});
test.afterAll(async () => {
  await world?.stop();
  await service?.close();
});

test('a friend the link cannot take now records, and is told in their language when to turn notifications on', async () => {
  const session = await world.signIn();
  const {
    link: { token },
  } = await enterRace(world.client(session), UPCOMING_RACE, 'Alex');
  // Two phones came onto the link first: its new phones of the hour.
  for (let i = 0; i < 2; i++) {
    const phone = await request.newContext();
    expect((await phone.get(`${world.server.url}/api/r/${token}`)).status()).toBe(200);
    await phone.dispose();
  }
  const { context } = await launchPhone(await speechWav());
  try {
    await context.grantPermissions(['notifications'], { origin: world.server.url });
    await standInPushManager(context, service.subscribe());
    const page = await openRecorder(context, world.server, token);
    await fillDetails(page, 'Mile 20', 'Sam');
    await record(page, 2);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(noteStates(page)).toHaveText(['Safe with us']);

    const refused = page.waitForResponse((r) => r.url() === `${world.server.url}/api/r/${token}/push` && r.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Tell me when Alex hears it' }).click();
    expect((await refused).status()).toBe(429);
    const said = page.getByTestId('push-heard').getByRole('alert');
    await expect(said).toHaveText(/^Many new phones opened this link in the last hour\. Try again in about (59|60) minutes\. Your notes still reach Alex\.$/);
    await screenshot(page, 'push-link-phones-busy');
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('button', { name: "Prévenez-moi quand Alex l'entend" }).click();
    await expect(said).toHaveText(/^Beaucoup de nouveaux téléphones ont ouvert ce lien dans la dernière heure\. Réessayez dans environ (59|60) minutes\./);
    expect((await (await context.request.get(`${world.server.url}/api/r/${token}/push`)).json()).subscribed).toBe(false);
    expect(service.requests()).toBe(0);
  } finally {
    await context.close();
  }
});
