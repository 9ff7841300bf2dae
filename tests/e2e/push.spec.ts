/**
 * Told by Web Push, end to end in Chromium: a friend taps "Tell me when Alex hears it"
 * after sending a note; the runner's app reports it played; the real server signs and encrypts a
 * push to a loopback stand-in push service, which checks the VAPID signature and decrypts it as a
 * browser would; the real service worker shows it in the friend's language. Another friend's note is
 * never pushed, and a subscription the service says is gone (410) is forgotten. A spectator asks to
 * be told when the runner is about ten minutes from a marker and is, once the runner's positions say
 * so; an endpoint outside PUSH_HOSTS is refused and never contacted; an iPhone outside the Home
 * Screen app is told how to get there instead of asked.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, request, test, type APIRequestContext, type BrowserContext } from '@playwright/test';
import { contentDigestHeader } from '../../contract/contentDigest';
import type { DeclarativePush } from '../../contract/push';
import { startPushService, type PushServiceStandIn } from '../../stand-ins/pushService';
import { speechWav } from '../../stand-ins/speech';
import { positionAt } from '../server/support/live-race';
import { sha256Hex, WEBM_HEADER } from '../server/support/uploads';
import { deliverPush, noticesShown, standInPushManager } from './support/push';
import { fillDetails, launchPhone, noteStates, openRecorder, PHONE, record } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';
import { UPCOMING_RACE } from '../../kit/races';
import { enterRace } from '../../kit/runnerApi';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

const root = path.resolve(import.meta.dirname, '../..');
const MILE = 1609.344;
const MINUTE = 60_000;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let service: PushServiceStandIn;
/** A push service the server is not told about: it must never be called. */
let elsewhere: PushServiceStandIn;
let world: RunnerWorld;

test.beforeAll(async () => {
  [service, elsewhere] = await Promise.all([startPushService(), startPushService()]);
  world = await startRunnerWorld({ PUSH_HOSTS: service.host, VAPID_SUBJECT: 'mailto:ops@milenotes.test', NODE_EXTRA_CA_CERTS: service.caFile });
});
test.afterAll(async () => {
  await world?.stop();
  await Promise.all([service?.close(), elsewhere?.close()]);
});

const noticesTo = (endpoint: string) => service.received().filter((p) => p.endpoint === endpoint);
const played = async (session: string, noteId: string, marker = 'mi-20') =>
  expect(
    (await world.client(session).POST('/api/notes/{id}/played', { params: { path: { id: noteId } }, body: { playedAt: new Date().toISOString(), marker } }))
      .response.status,
  ).toBe(200);

/** A note sent through the link by a phone whose cookies `phone` holds (a friend's, or the browser context's own). */
async function sendNote(phone: APIRequestContext, token: string): Promise<string> {
  const noteId = randomUUID();
  const body = Buffer.alloc(2048, 7);
  WEBM_HEADER.copy(body);
  const put = await phone.put(`${world.server.url}/api/r/${token}/notes/${noteId}?marker=mi-20&from=Jo`, {
    headers: { 'content-type': 'audio/webm;codecs=opus', 'content-digest': contentDigestHeader(sha256Hex(body)) },
    data: body,
  });
  expect(put.status()).toBe(201);
  return noteId;
}

const pushResponse =
  (token: string, method = 'PUT') =>
  (r: { url(): string; request(): { method(): string } }) =>
    r.url() === `${world.server.url}/api/r/${token}/push` && r.request().method() === method;

test("a friend is told in their language when the runner hears their note, never of another friend's, and a gone subscription is forgotten", async () => {
  const session = await world.signIn();
  const {
    link: { token },
  } = await enterRace(world.client(session), UPCOMING_RACE, 'Alex');
  const sub = service.subscribe();
  const { context } = await launchPhone(await speechWav());
  const jo = await request.newContext();
  try {
    await context.grantPermissions(['notifications'], { origin: world.server.url });
    await standInPushManager(context, sub);
    const page = await openRecorder(context, world.server, token);
    // Nothing is asked before a note is sent, nor on load.
    await expect(page.getByTestId('push-heard')).toHaveCount(0);
    await fillDetails(page, 'Mile 20', 'Sam');
    await record(page, 2);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(noteStates(page)).toHaveText(['Safe with us']);
    const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
    expect(await page.evaluate(() => (window as { __pushKey?: string }).__pushKey)).toBeUndefined();

    const subscribed = page.waitForResponse(pushResponse(token));
    await page.getByRole('button', { name: 'Tell me when Alex hears it' }).click();
    expect((await subscribed).status()).toBe(200);
    await expect(page.getByTestId('push-heard')).toContainText("You'll be told when Alex hears your notes.");
    // The browser subscribed with the key the server serves.
    const { publicKey } = (await (await context.request.get(`${world.server.url}/api/r/${token}/push`)).json()) as { publicKey: string };
    expect(await page.evaluate(() => (window as { __pushKey?: string }).__pushKey)).toBe(publicKey);
    await screenshot(page, 'push-heard-on');
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // The friend reads German from now on: the notices will too.
    const german = page.waitForResponse((r) => pushResponse(token)(r) && r.request().postDataJSON()?.lang === 'de');
    await page.getByLabel('Language').selectOption('de');
    expect((await german).status()).toBe(200);

    // Another friend on the same link, on a phone of their own: their note is played first, and never pushed here.
    await jo.get(`${world.server.url}/api/r/${token}`);
    await played(session, await sendNote(jo, token));
    await played(session, noteId);
    await expect.poll(() => noticesTo(sub.endpoint).length).toBe(1);
    const [push] = noticesTo(sub.endpoint);
    expect(JSON.parse(push!.text) as DeclarativePush).toEqual({
      web_push: 8030,
      app_badge: 1,
      notification: {
        title: 'Alex hat deine Nachricht bei Meile 20 gehört',
        navigate: `${world.server.url}/r/${token}`,
        lang: 'de',
        dir: 'auto',
        tag: `heard:${noteId}`,
        silent: false,
      },
    });

    await deliverPush(page, world.server.url, push!.text);
    expect(await noticesShown(page)).toEqual([
      { title: 'Alex hat deine Nachricht bei Meile 20 gehört', tag: `heard:${noteId}`, lang: 'de', data: { url: `/r/${token}` } },
    ]);

    // The browser dropped the subscription: the push service answers 410, and the server forgets it.
    service.script(sub.endpoint, { status: 410 });
    await played(session, await sendNote(context.request, token));
    await expect.poll(async () => (await (await context.request.get(`${world.server.url}/api/r/${token}/push`)).json()).subscribed).toBe(false);
    await page.reload();
    await expect(page.getByTestId('push-heard').getByRole('button')).toHaveText('Sag mir, wenn Alex sie hört');
    expect(noticesTo(sub.endpoint)).toHaveLength(1);
  } finally {
    await jo.dispose();
    await context.close();
  }
});

/**
 * A runner in a live race who shares progress, whose first 40 minutes (4 miles at 10 min/mile) are
 * in while it is 60 minutes later now: Mile 14 is expected about 40 minutes from now.
 */
async function runnerSharing(displayName: string) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'tests/e2e/support/start-live-race.ts', UPCOMING_RACE, '100'], {
    cwd: root,
    env: world.server.env,
  });
  const start = (JSON.parse(stdout.trim().split('\n').pop()!) as { start: number }).start;
  const session = await world.signIn();
  const entry = await enterRace(world.client(session), UPCOMING_RACE, displayName);
  expect((await world.client(session).PATCH('/api/entries/{id}', { params: { path: { id: entry.id } }, body: { shareProgress: true } })).response.status).toBe(
    200,
  );
  const run = (from: number, to: number, fromMiles: number, minutesPerMile: number) =>
    Array.from({ length: to - from }, (_, i) => positionAt((fromMiles + (i + 1) / minutesPerMile) * MILE, start + (from + i + 1) * MINUTE));
  expect(
    (await world.client(session).POST('/api/entries/{id}/positions', { params: { path: { id: entry.id } }, body: { positions: run(0, 40, 0, 10) } })).response
      .status,
  ).toBe(200);
  /** The next hour at 6:30 a mile: past Mile 13, under a mile from Mile 14. */
  const speedUp = async () =>
    expect(
      (await world.client(session).POST('/api/entries/{id}/positions', { params: { path: { id: entry.id } }, body: { positions: run(40, 99, 4, 6.5) } }))
        .response.status,
    ).toBe(200);
  return { token: entry.link.token as string, speedUp };
}

async function spectator(context: BrowserContext, token: string, marker = 'mi-14') {
  const page = await context.newPage();
  await page.goto(`${world.server.url}/r/${token}`);
  await page.getByLabel('Marker').selectOption(marker);
  return page;
}

test('a spectator is told once when the runner is about ten minutes from a marker; a push service not listed is refused unasked; an iPhone tab is sent to the Home Screen', async ({
  browser,
}) => {
  const { token, speedUp } = await runnerSharing('Kim');
  const sub = service.subscribe();
  const contexts = await Promise.all([
    browser.newContext({ viewport: PHONE }),
    browser.newContext({ viewport: PHONE }),
    browser.newContext({ viewport: PHONE, userAgent: IPHONE }),
  ]);
  const [fan, stranger, iphone] = contexts;
  try {
    await fan!.grantPermissions(['notifications'], { origin: world.server.url });
    await standInPushManager(fan!, sub);
    const page = await spectator(fan!, token);
    const asked = page.waitForResponse((r) => r.url().endsWith(`/push/alerts/mi-14`) && r.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Tell me when Kim is about 10 minutes from Mile 14' }).click();
    expect((await asked).status()).toBe(200);
    await expect(page.getByTestId('push-alert')).toContainText("You'll be told when Kim is about 10 minutes from Mile 14.");
    await screenshot(page, 'push-alert-on');
    expect(noticesTo(sub.endpoint)).toEqual([]);

    await speedUp();
    await expect.poll(() => noticesTo(sub.endpoint).length).toBe(1);
    const [push] = noticesTo(sub.endpoint);
    expect((JSON.parse(push!.text) as DeclarativePush).notification).toMatchObject({
      title: 'Kim is about 10 minutes from Mile 14',
      navigate: `${world.server.url}/r/${token}`,
      lang: 'en',
    });
    await page.evaluate(() => navigator.serviceWorker.ready);
    await deliverPush(page, world.server.url, push!.text);
    expect((await noticesShown(page)).map((n) => n.title)).toEqual(['Kim is about 10 minutes from Mile 14']);

    // A browser whose push service PUSH_HOSTS does not list: refused with the page's words, and never called.
    await stranger!.grantPermissions(['notifications'], { origin: world.server.url });
    await standInPushManager(stranger!, elsewhere.subscribe());
    const refused = await spectator(stranger!, token, 'mi-20');
    await refused.getByRole('button', { name: 'Tell me when Kim is about 10 minutes from Mile 20' }).click();
    await expect(refused.getByTestId('push-alert').getByRole('alert')).toHaveText("MileNotes can't send notifications to this browser.");
    expect(elsewhere.requests()).toBe(0);

    // Safari on an iPhone, outside the Home Screen app: the tap explains, and asks the browser nothing.
    const tab = await spectator(iphone!, token, 'mi-20');
    const calls: string[] = [];
    tab.on('request', (r) => r.url().includes('/push') && r.method() !== 'GET' && calls.push(r.url()));
    await tab.getByRole('button', { name: 'Tell me when Kim is about 10 minutes from Mile 20' }).click();
    await expect(tab.getByTestId('push-install-hint')).toHaveText(/Add to Home Screen/);
    expect(await tab.evaluate(() => Notification.permission)).toBe('default');
    expect(calls).toEqual([]);
    await screenshot(tab, 'push-install-hint');
    expect((await new AxeBuilder({ page: tab }).analyze()).violations).toEqual([]);
  } finally {
    await Promise.all(contexts.map((c) => c.close()));
  }
});

/**
 * Chromium never fires pushsubscriptionchange itself and CDP cannot, so the test dispatches one in
 * the real worker (that event's own waitUntil shimmed, as a synthetic event's may not be extended)
 * with the worker's pushManager.subscribe handing out a second stand-in subscription until the
 * renewal is done: the worker asks the server for the key, re-subscribes, and tells the link; the
 * next push goes to the new endpoint, and meets the browser's own APIs.
 */
test('a subscription the browser replaced is renewed and told to the server, and a push the worker cannot read still shows a notice', async ({ browser }) => {
  const session = await world.signIn();
  const {
    link: { token },
  } = await enterRace(world.client(session), UPCOMING_RACE, 'Lee');
  const [old, fresh] = [service.subscribe(), service.subscribe()];
  const context = await browser.newContext({ viewport: PHONE });
  try {
    await context.grantPermissions(['notifications'], { origin: world.server.url });
    const page = await context.newPage();
    await page.goto(`${world.server.url}/r/${token}`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The recorder's own subscribe, through the worker, which keeps the link and endpoint.
    const status = await page.evaluate(
      async ([t, sub]) =>
        (
          await fetch(`/api/r/${t}/push`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...sub, lang: 'en', heard: true }),
          })
        ).status,
      [token, old] as const,
    );
    expect(status).toBe(200);

    const worker = context.serviceWorkers().find((w) => w.url().startsWith(world.server.url))!;
    const key = await worker.evaluate(async (sub) => {
      // The worker's globals, which this file's DOM types do not name.
      const scope = self as unknown as EventTarget & { ExtendableEvent: new (type: string) => Event };
      let key: string | undefined;
      // For this one renewal only: the push delivered next must meet the browser's own subscribe and waitUntil.
      const subscribe = PushManager.prototype.subscribe;
      PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
        key = btoa(String.fromCharCode(...new Uint8Array(options!.applicationServerKey as ArrayBuffer)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        return { endpoint: sub.endpoint, toJSON: () => ({ endpoint: sub.endpoint, keys: sub.keys }) } as unknown as PushSubscription;
      };
      try {
        const change = new scope.ExtendableEvent('pushsubscriptionchange');
        let waited: Promise<unknown> = Promise.resolve();
        // On this event alone, not on the prototype every later event shares.
        Object.defineProperty(change, 'waitUntil', { value: (p: Promise<unknown>) => void (waited = p) });
        scope.dispatchEvent(change);
        await waited;
        return key;
      } finally {
        PushManager.prototype.subscribe = subscribe;
      }
    }, fresh);
    const browsersOwn = await worker.evaluate(() => {
      const scope = self as unknown as { ExtendableEvent: { prototype: { waitUntil: unknown } } };
      return [PushManager.prototype.subscribe, scope.ExtendableEvent.prototype.waitUntil].map((api) => /\[native code\]/.test(String(api)));
    });
    expect(browsersOwn).toEqual([true, true]);
    const { publicKey, subscribed } = (await (await context.request.get(`${world.server.url}/api/r/${token}/push`)).json()) as {
      publicKey: string;
      subscribed: boolean;
    };
    expect([key, subscribed]).toEqual([publicKey, true]);

    await played(session, await sendNote(context.request, token));
    await expect.poll(() => noticesTo(fresh.endpoint).length).toBe(1);
    expect(noticesTo(old.endpoint)).toEqual([]);

    // A body the worker cannot read (not the server's): a plain notice all the same.
    await deliverPush(page, world.server.url, 'not json');
    expect(await noticesShown(page)).toEqual([{ title: 'MileNotes', tag: '', lang: '', data: { url: '/' } }]);
  } finally {
    await context.close();
  }
});
