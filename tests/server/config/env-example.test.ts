/**
 * .env.example against the settings' one owner (server/config, loadConfig): it names every setting
 * the server reads and nothing else, each line that is not commented out is that setting's default
 * (so loading the file as its header says changes nothing), and each commented-out example is a value
 * the server accepts. Read generically (which names loadConfig asks the environment for), so a
 * setting added to server/config fails here until .env.example lists it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const file = path.join(root, '.env.example');
const text = readFileSync(file, 'utf8');

/** Lines `NAME=value` (active) and `# NAME=value` (an example or a derived default), in order. */
const lines = text.split('\n').flatMap((line) => {
  const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
  return match ? [{ name: match[2]!, value: match[3]!, active: !match[1], line }] : [];
});
const named = new Set(lines.map((l) => l.name));

/** What the file sets when loaded as its header says (`set -a; . ./.env`), by sh itself, so its quoting counts. */
function sourced(): Record<string, string> {
  const out = execFileSync('sh', ['-c', 'set -a; . "$1"; exec env -0', 'sh', file], { env: {}, encoding: 'utf8' });
  return Object.fromEntries(
    out
      .split('\0')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const)
      .filter(([name]) => named.has(name)),
  );
}

/**
 * The base every comparison starts from. A SESSION_SECRET, so loadConfig never makes a development
 * secret under DATA_DIR (./data here, this checkout's).
 */
const base = { SESSION_SECRET: 'a-session-secret-for-this-test-0123456789' };

/** The names loadConfig reads from `env`, whichever file of server/config reads them. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const watched = new Proxy(env, {
    get: (target, key) => {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
    has: (target, key) => {
      if (typeof key === 'string') read.add(key);
      return key in target;
    },
  });
  loadConfig(watched);
  return read;
}

/** Every .ts file under server/, for settings read outside loadConfig (the admin CLI's backup reads PG_BIN). */
function serverSources(): string {
  return readdirSync(path.join(root, 'server'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mjs)$/.test(f))
    .map((f) => readFileSync(path.join(root, 'server', f), 'utf8'))
    .join('\n');
}

/**
 * Every value the file shows: its active lines as sh reads them and its commented-out examples (an
 * empty one, SESSION_SECRET=, is a place to fill in, the same as unset).
 */
function everyValue(): Record<string, string> {
  const examples = lines.filter((l) => !l.active && l.value !== '').map((l) => [l.name, l.value]);
  return { ...sourced(), ...Object.fromEntries(examples) };
}

describe('.env.example', () => {
  it('should name every setting the server reads', () => {
    // With every example set too, so settings read only beside another (S3_* beside S3_BUCKET) are asked for.
    const read = new Set([...namesRead({ ...base }), ...namesRead({ ...base, ...everyValue() })]);
    expect([...read].filter((name) => !named.has(name)).sort()).toEqual([]);
  });

  it('should name no setting the server does not read', () => {
    const read = namesRead({ ...base, ...everyValue() });
    const sources = serverSources();
    const unknown = [...named].filter((name) => !read.has(name) && !new RegExp(`\\b${name}\\b`).test(sources));
    expect(unknown).toEqual([]);
  });

  it('should change nothing when loaded as its header says: each active line is the default', () => {
    const defaults = loadConfig({ ...base });
    const loaded = sourced();
    expect(Object.keys(loaded).sort()).toEqual(
      lines
        .filter((l) => l.active)
        .map((l) => l.name)
        .sort(),
    );
    for (const [name, value] of Object.entries(loaded)) {
      expect(loadConfig({ ...base, [name]: value }), `${name}=${value} is not the default`).toEqual(defaults);
    }
    expect(loadConfig({ ...base, ...loaded })).toEqual(defaults);
  });

  it('should show, commented out, values the server accepts, all together (production needs them so)', () => {
    expect(everyValue()).toHaveProperty('NODE_ENV', 'production');
    expect(() => loadConfig({ ...base, ...everyValue() })).not.toThrow();
  });
});
