/**
 * The site as phones meet it in production: through the front (deploy/Caddyfile in Debian's caddy,
 * kit/caddy.ts) over HTTPS and HTTP/2, its certificate from Caddy's own CA trusted by the browser
 * for the run, and the server behind it trusting its forwarded headers (TRUST_PROXY) with an https
 * PUBLIC_URL. A friend's note is sent, one recorded with no signal waits in the worker and goes when
 * the signal is back, the friend is told by Web Push that the runner heard it, and the installed
 * app starts on the links the phone's __Host- cookie names.
 *
 * The runner's side (sign-in, the entry, "played") speaks to the server straight: what is under
 * test here is the friends' browser behind the front.
 */
import { expect, test } from '@playwright/test';
import { fillDetails, launchPhone, noteStates, openRecorder, pageAudioSha256, record, serverNotes } from '../../kit/browser/recorder';
import { type RunningFront, startServerBehindFront } from '../../kit/caddy';
import { addUpcomingRace, UPCOMING_RACE } from '../../kit/races';
import { enterRace, runnerClient, signIn } from '../../kit/runnerApi';
import type { RunningServer } from '../../kit/server';
import { type FakeApple, startFakeApple } from '../../stand-ins/fakeApple';
import { type PushServiceStandIn, startPushService } from '../../stand-ins/pushService';
import { speechWav } from '../../stand-ins/speech';
import { deliverPush, noticesShown, standInPushManager } from './support/push';
import { screenshot } from './support/screenshot';

let apple: FakeApple;
let pushService: PushServiceStandIn;
let server: RunningServer;
let front: RunningFront;
/** The server as the browser reaches it: at the front's address. */
let site: RunningServer;

test.beforeAll(async () => {
  [apple, pushService] = await Promise.all([startFakeApple(), startPushService()]);
  ({ server, front } = await startServerBehindFront({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'e2e-secret-that-is-long-enough-0123456789',
    PUSH_HOSTS: pushService.host,
    NODE_EXTRA_CA_CERTS: pushService.caFile,
  }));
  site = { ...server, url: front.url };
  await addUpcomingRace(server);
});
test.afterAll(async () => {
  await front?.stop();
  await server?.stop();
  await Promise.all([apple?.close(), pushService?.close()]);
});

/** A phone whose browser trusts the front's certificate. */
const phone = async () => launchPhone(await speechWav(), undefined, { args: front.chromiumArgs });

test("a friend's note goes over HTTP/2, one recorded with no signal waits in the worker and goes when it is back, and a push says the runner heard it", async () => {
  const session = await signIn(server.url, apple);
  const runner = runnerClient(server.url, session);
  const entry = await enterRace(runner, UPCOMING_RACE, 'Alex');
  const token = entry.link.token;
  const subscription = pushService.subscribe();
  const { context } = await phone();
  try {
    // Granted for one origin, a list denies what it leaves out: the phone's own permissions stay.
    await context.grantPermissions(['notifications', 'microphone', 'background-sync'], { origin: front.url });
    await standInPushManager(context, subscription);
    const page = await openRecorder(context, site, token);
    const arrival = await page.evaluate(() => ({
      secure: window.isSecureContext,
      protocol: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
    }));
    expect(arrival).toEqual({ secure: true, protocol: 'h2' });

    const noteId = await test.step('online: the note is sent, and the server holds its very bytes', async () => {
      await fillDetails(page, 'Mile 20', 'Sam');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      const id = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      expect(await serverNotes(server, token)).toMatchObject([{ id, marker: 'mi-20', from: 'Sam', sha256: await pageAudioSha256(page, id) }]);
      return id;
    });

    await test.step('the runner hears it, and the friend is told by a push', async () => {
      const subscribed = page.waitForResponse((r) => r.url() === `${front.url}/api/r/${token}/push` && r.request().method() === 'PUT');
      await page.getByRole('button', { name: 'Tell me when Alex hears it' }).click();
      expect((await subscribed).status()).toBe(200);
      const played = await runner.POST('/api/notes/{id}/played', {
        params: { path: { id: noteId } },
        body: { playedAt: new Date().toISOString(), marker: 'mi-20' },
      });
      expect(played.response.status).toBe(200);
      await expect.poll(() => pushService.received().filter((p) => p.endpoint === subscription.endpoint).length).toBe(1);
      const [push] = pushService.received();
      expect(JSON.parse(push!.text)).toMatchObject({ notification: { title: 'Alex heard your note at Mile 20', navigate: `${front.url}/r/${token}` } });
      await deliverPush(page, front.url, push!.text);
      expect(await noticesShown(page)).toEqual([
        { title: 'Alex heard your note at Mile 20', tag: `heard:${noteId}`, lang: 'en', data: { url: `/r/${token}` } },
      ]);
    });

    await test.step('no signal: the worker serves the recorder, and the note waits on the phone', async () => {
      await context.setOffline(true);
      await page.reload();
      await expect(page.getByRole('heading', { name: 'Alex', exact: true })).toBeVisible();
      await fillDetails(page, 'Mile 21', 'Sam');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toContainText(['Saved on this phone']);
      await expect(page.getByTestId('status-line')).toContainText("Your notes will send automatically when you're back online");
      await screenshot(page, 'front-offline-saved');
      expect(await serverNotes(server, token)).toHaveLength(1);
    });

    await test.step('the signal is back: the note goes through the front', async () => {
      await context.setOffline(false);
      // The first note was heard before the signal went; the page asks about both once the second is up.
      await expect(noteStates(page)).toHaveText(['Heard by Alex', 'Safe with us'], { timeout: 15_000 });
      expect((await serverNotes(server, token)).map((n) => n.marker).sort()).toEqual(['mi-20', 'mi-21']);
    });
  } finally {
    await context.close();
  }
});

test("the installed app starts on the links the phone's __Host- cookie names: Secure, HttpOnly, Path=/, no Domain", async () => {
  const [ana, ben] = await Promise.all([server.createLink('Ana', UPCOMING_RACE), server.createLink('Ben', 'chicago-2025')]);
  const safari = await phone();
  const cookies = await (async () => {
    try {
      const page = await openRecorder(safari.context, site, ana);
      await page.goto(`${front.url}/r/${ben}`);
      await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
      return await safari.context.cookies();
    } finally {
      await safari.context.close();
    }
  })();
  // A host-only cookie (no Domain attribute) is listed under the bare host, without a leading dot.
  expect(cookies.map(({ name, domain, path, secure, httpOnly, sameSite }) => ({ name, domain, path, secure, httpOnly, sameSite }))).toEqual([
    { name: '__Host-mn_device', domain: 'localhost', path: '/', secure: true, httpOnly: true, sameSite: 'Lax' },
  ]);

  // What an iPhone gives its home-screen app: the cookies alone, in a new profile.
  const installed = await phone();
  try {
    await installed.context.addCookies(
      cookies.map(({ name, value, expires, httpOnly, secure, sameSite }) => ({ name, value, url: front.url, expires, httpOnly, secure, sameSite })),
    );
    const page = installed.context.pages()[0] ?? (await installed.context.newPage());
    const manifest = (await (await fetch(`${server.url}/manifest.webmanifest`)).json()) as { start_url: string };
    await page.goto(new URL(manifest.start_url, front.url).href);
    await expect(page).toHaveURL(`${front.url}/home-screen`);
    await expect(page.getByTestId('runner').getByRole('heading')).toHaveText(['Ana', 'Ben']);
    await screenshot(page, 'front-home-screen');
  } finally {
    await installed.context.close();
  }
});
