/**
 * No import circle anywhere in the code we ship (server/, src/, sw/), type-only imports included:
 * a circle is how a module's interface ends up derived from its implementation. And the storage
 * layer (server/db/) under the domain: it imports no room that holds a domain rule or a caller of
 * it. And nothing that is not a test (the bench, the demo, the kit and the stand-ins they share with
 * the tests) imports from tests/: what they share lives in kit/ or stand-ins/. It lives with the
 * server tests because it runs in Node; it reads the other runtimes' sources as text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
/** import('./x.js'), written out: a module named by an expression cannot be followed (none of ours is). */
const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The rooms of server/ that hold domain rules or call them: the storage layer imports none of them. */
const DOMAIN_ROOMS = ['races', 'push', 'routes', 'intake', 'devices', 'auth', 'audio', 'conversion', 'cli', 'runner', 'sync', 'ops'];

function sourcesUnder(dir: string, pattern = /\.tsx?$/): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && pattern.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** `./x.js` written in a .ts file means ./x.ts (or .tsx); other files (CSS, JSON) are not modules of ours. */
function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** Every import of a domain room by a file of server/db/, as 'importer -> imported', paths from the root. */
function storageImportsOfDomain(): string[] {
  const db = path.join(root, 'server/db');
  return sourcesUnder(db).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const importer = path.relative(root, file);
    return (
      [...text.matchAll(STATIC_IMPORT), ...text.matchAll(DYNAMIC_IMPORT)]
        // Unresolved too: an import of a file not there is still an arrow drawn to its room.
        .map((m) => path.relative(root, path.resolve(path.dirname(file), m[1]!)))
        .filter((target) => {
          const room = /^server\/([^/]+)\//.exec(target)?.[1];
          return room !== undefined && DOMAIN_ROOMS.includes(room);
        })
        .map((target) => `${importer} -> ${target}`)
    );
  });
}

/** Every circle, each as the files around it, found by depth-first search over static imports. */
function importCircles(files: string[]): string[][] {
  const edges = new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(STATIC_IMPORT)].map((m) => resolve(file, m[1]!)).filter((t): t is string => t !== undefined);
      return [file, targets] as const;
    }),
  );
  const circles: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string) => {
    const at = stack.indexOf(file);
    if (at >= 0) return void circles.push(stack.slice(at).map((f) => path.relative(root, f)));
    if (done.has(file)) return;
    stack.push(file);
    for (const target of edges.get(file) ?? []) visit(target);
    stack.pop();
    done.add(file);
  };
  for (const file of files) visit(file);
  return circles;
}

describe('the imports of server/, src/ and sw/', () => {
  it('should form no circle', () => {
    const files = ['server', 'src', 'sw'].flatMap((dir) => sourcesUnder(path.join(root, dir)));
    expect(files.length).toBeGreaterThan(50);
    expect(importCircles(files)).toEqual([]);
  });

  it('should keep the storage layer under the domain: server/db/ imports no domain room', () => {
    expect(sourcesUnder(path.join(root, 'server/db')).length).toBeGreaterThan(20);
    expect(storageImportsOfDomain()).toEqual([]);
  });
});

describe('what is not a test', () => {
  it('should import nothing from tests/: the bench, the demo, the kit and the stand-ins', () => {
    const tests = path.join(root, 'tests') + path.sep;
    const files = ['bench', 'demo', 'kit', 'stand-ins'].flatMap((dir) => sourcesUnder(path.join(root, dir), /\.(tsx?|mjs|js)$/));
    expect(files.length).toBeGreaterThan(50);
    const intoTests = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(STATIC_IMPORT), ...text.matchAll(DYNAMIC_IMPORT)]
        .filter((m) => path.resolve(path.dirname(file), m[1]!).startsWith(tests))
        .map((m) => `${path.relative(root, file)} -> ${m[1]}`);
    });
    expect(intoTests).toEqual([]);
  });
});
