/**
 * The run's list of operations no test exercises. Test files run in separate workers, so each
 * writes what it exercised into one directory of this run (./drift-setup.ts); at the end of the run
 * this reads them all. When every server test file ran, an operation of the document that no test
 * answered and that UNEXERCISED does not excuse fails the run, and so does an excuse for an
 * operation that is exercised after all. A run of some files only writes the list and judges nothing.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { UNEXERCISED } from './unexercised.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each server test file writes the operations it exercised. */
    openapiExercisedDir: string;
  }
}

const root = path.resolve(import.meta.dirname, '../../..');
const results = path.join(root, 'test-results/openapi');

interface FileRecord {
  file?: string;
  exercised: string[];
  documented: string[];
}

/** Every server test file, as vitest's include (tests/server/**\/*.test.ts) finds them. */
const serverTestFiles = () =>
  (readdirSync(path.join(root, 'tests/server'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(root, 'tests/server', f));

export default function setup(project: TestProject) {
  const dir = path.join(results, `exercised-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  project.provide('openapiExercisedDir', dir);

  return () => {
    const records = readdirSync(dir).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as FileRecord);
    rmSync(dir, { recursive: true, force: true });
    const ran = new Set(records.map((r) => r.file));
    const missing = serverTestFiles().filter((f) => !ran.has(f));
    const exercised = new Set(records.flatMap((r) => r.exercised));
    const documented = [...new Set(records.flatMap((r) => r.documented))].sort();
    const unexercised = documented.filter((id) => !exercised.has(id));
    const report = { complete: missing.length === 0, unexercised, excused: UNEXERCISED, exercised: [...exercised].sort() };
    writeFileSync(path.join(results, 'coverage.json'), `${JSON.stringify(report, null, 2)}\n`);
    if (missing.length > 0) return;
    const unexcused = unexercised.filter((id) => !(id in UNEXERCISED));
    const stale = Object.keys(UNEXERCISED).filter((id) => exercised.has(id));
    if (unexcused.length > 0 || stale.length > 0) {
      // A teardown's error is only printed; the exit code is what fails CI (vitest sets it the same way).
      console.error(
        '\nFAILED: operations of /api/openapi.json no server test exercises: ' +
          (unexcused.join(', ') || 'none') +
          '; excused in tests/server/openapi/unexercised.ts but exercised after all: ' +
          (stale.join(', ') || 'none'),
      );
      process.exitCode = 1;
    }
  };
}
