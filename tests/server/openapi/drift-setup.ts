/**
 * Setup of every server test file (vite.config.ts, setupFiles): every app a test builds is held to
 * /api/openapi.json (./drift.ts), a test whose answers drifted from it fails, and the operations
 * the file exercised are written for the run's list of operations no test exercises
 * (./globalSetup.ts reads them at the end of the run).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, expect, inject } from 'vitest';
import { operationsSeen, takeViolations, watchEveryApp } from './drift.js';

watchEveryApp();

let file: string | undefined;
beforeEach(() => {
  file = expect.getState().testPath;
});

afterEach(() => {
  const violations = takeViolations();
  expect(violations, `answers that drifted from /api/openapi.json:\n${violations.join('\n')}`).toEqual([]);
});

afterAll(() => {
  writeFileSync(path.join(inject('openapiExercisedDir'), `${randomUUID()}.json`), JSON.stringify({ file, ...operationsSeen() }));
});
