import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { openDatabase } from '../../../server/db/index.js';
import { createRepository } from '../../../server/db/repository.js';
import { BACKENDS } from '../support/backends.js';
import { positionAt, startRace } from '../support/live-race.js';
import { countStatements, type StatementCounter } from '../support/statements.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

const PACE = 3; // m/s

/**
 * What the requests every app sends all race long cost the database, statement by statement:
 * each is a round trip, and on PostgreSQL a transaction of its own. Push is off so that no alert's
 * pass after the answer is counted with it.
 */
describe.each(BACKENDS)('the statements of an app’s race-day requests on %s', (kind) => {
  let t: RunnerTestApp;
  let counter: StatementCounter;
  let start: number;
  beforeAll(async () => {
    t = await startRunnerApp(kind, { PUSH: 'off' }, async (backend) => {
      counter = countStatements(openDatabase(backend.config));
      const repo = createRepository(counter.db);
      await repo.migrate();
      return { repo };
    });
    start = await startRace(t.app.repo);
  });
  afterAll(() => t.close());

  async function sharingRunner(): Promise<{ session: Session; id: string }> {
    const session = await t.signIn();
    const { id } = await t.enter(session);
    expect((await t.call(session, 'PATCH', `/api/entries/${id}`, { shareProgress: true })).statusCode).toBe(200);
    return { session, id };
  }
  const running = (seconds: number) => positionAt(seconds * PACE, start + seconds * 1000);

  it('should place a batch between markers in three: the account, what the batch starts from, the move', async () => {
    const { session, id } = await sharingRunner();
    // The first placement moves the notes' deadlines and reads the course: not what the rest cost.
    expect((await t.call(session, 'POST', `/api/entries/${id}/positions`, { positions: [running(60)] })).json().accepted).toBe(1);
    const { result, statements } = await counter.during(() =>
      t.call(session, 'POST', `/api/entries/${id}/positions`, { positions: [running(90), running(120)] }),
    );
    expect(result.json()).toMatchObject({ accepted: 2, progress: { at: new Date(start + 120_000).toISOString() } });
    expect(statements, statements.join('\n')).toHaveLength(3);
  });

  it('should answer a held sync that waited out its time in three: the account, the entry with its latest change, the changes after the wait', async () => {
    const { session, id } = await sharingRunner();
    const { cursor } = (await t.call(session, 'GET', `/api/entries/${id}/notes`)).json();
    const { result, statements } = await counter.during(() => t.call(session, 'GET', `/api/entries/${id}/notes?after=${cursor}&wait=1`));
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ cursor, removed: [] });
    expect(statements, statements.join('\n')).toHaveLength(3);
  });
});
