/**
 * A browser replaced its push subscription (pushsubscriptionchange): the service worker
 * tells each link, and only this phone's row on that link whose endpoint is the old one takes the
 * new endpoint, keeping its language and choice; a wrong old endpoint, another phone, no cookie,
 * or a new endpoint outside PUSH_HOSTS change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import type { Session } from '../../../contract/runnerApi.js';
import { startPushService, type PushServiceStandIn, type StandInSubscription } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

describe.each(BACKENDS)('a replaced push subscription on %s', (kind) => {
  let service: PushServiceStandIn;
  let elsewhere: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  let db: Database;
  let session: Session;
  beforeAll(async () => {
    [service, elsewhere] = await Promise.all([startPushService(), startPushService()]);
    untrust = trustPushService(service);
    t = await startRunnerApp(kind, pushEnv(service));
    db = openDatabase(t.backend.config);
    session = await t.signIn();
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await Promise.all([service?.close(), elsewhere?.close()]);
  });

  const rows = async () =>
    (await db.all('SELECT link_id, endpoint, p256dh, lang, heard FROM push_subscriptions ORDER BY link_id')).map(
      (r): Record<string, unknown> => ({ ...r, heard: Boolean(Number(r.heard)) }),
    );
  const change = (token: string, cookie: string | undefined, oldEndpoint: string, sub: StandInSubscription) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/push/endpoint`,
      headers: cookie ? { cookie } : {},
      payload: { oldEndpoint, endpoint: sub.endpoint, keys: sub.keys },
    });

  it("should move only this phone's row on this link from the old endpoint to the new, keeping its language and choice", async () => {
    const [one, two] = [(await t.enter(session, undefined, 'Alex')).token, (await t.enter(session, undefined, 'Kim')).token];
    const sam = await phoneOpens(t.app, one);
    await phoneOpens(t.app, two, sam);
    const jo = await phoneOpens(t.app, one);
    await phoneOpens(t.app, two, jo);
    const lee = await phoneOpens(t.app, one);
    const old = service.subscribe();
    expect((await subscribe(t.app, one, sam, old, { lang: 'de', heard: false })).statusCode).toBe(200);
    expect((await subscribe(t.app, two, sam, old)).statusCode).toBe(200);
    const before = await rows();

    const fresh = service.subscribe();
    const moved = await change(one, sam, old.endpoint, fresh);
    expect([moved.statusCode, moved.json()]).toEqual([200, { publicKey: expect.any(String), subscribed: true, heard: false, lang: 'de', alerts: [] }]);
    const after = await rows();
    const changed = after.filter((r) => r.endpoint === fresh.endpoint);
    expect(changed).toEqual([{ link_id: expect.any(String), endpoint: fresh.endpoint, p256dh: fresh.keys.p256dh, lang: 'de', heard: false }]);
    // The other link's row is its own: the worker tells it separately.
    expect(after.filter((r) => r.endpoint === old.endpoint)).toHaveLength(1);
    expect(after).toHaveLength(before.length);

    // Told twice (the worker retried): the old endpoint no longer matches, nothing changes.
    const stale = await change(one, sam, old.endpoint, service.subscribe());
    expect([stale.statusCode, stale.json().error]).toEqual([409, 'push_not_subscribed']);
    // Another phone on the link that knows the endpoint, no cookie, an endpoint not on PUSH_HOSTS: nothing changes.
    expect((await change(two, jo, old.endpoint, service.subscribe())).json().error).toBe('push_not_subscribed');
    // A phone that never opened the link holds no subscription there.
    expect((await change(two, lee, old.endpoint, service.subscribe())).json().error).toBe('push_not_subscribed');
    expect((await change(two, undefined, old.endpoint, service.subscribe())).json().error).toBe('device_unknown');
    expect((await change(two, sam, old.endpoint, elsewhere.subscribe())).json().error).toBe('push_endpoint_refused');
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${two}/push/endpoint`,
      headers: { cookie: sam },
      payload: { oldEndpoint: old.endpoint, endpoint: fresh.endpoint },
    });
    expect(bad.statusCode).toBe(400);
    expect(await rows()).toEqual(after);
  });
});
