/**
 * Starts a throwaway PostgreSQL cluster on loopback for the server tests and hands its URL to
 * them (inject('pgAdminUrl')). PostgreSQL missing is a failure, never a skip: CI installs it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PG_BIN, startOwnPostgres } from '../../kit/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test cluster; each test file creates its own database in it. */
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (!existsSync(path.join(PG_BIN, 'pg_ctl'))) {
    throw new Error(
      `PostgreSQL is needed by the server tests but ${PG_BIN}/pg_ctl is missing. ` +
        'Install it (apt-get install postgresql) or point PG_BIN at its bin folder.',
    );
  }
  const cluster = await startOwnPostgres({ maxConnections: 200 });
  project.provide('pgAdminUrl', cluster.url);

  return () => {
    try {
      cluster.stop();
    } finally {
      cluster.remove();
    }
  };
}
