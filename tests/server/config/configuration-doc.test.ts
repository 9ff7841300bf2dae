/**
 * docs/configuration.md against the settings: its tables name every setting .env.example names (which
 * env-example.test.ts holds to what server/config reads) and nothing else, each setting once, and the
 * default written beside a setting is the one .env.example gives it. Lines stay readable in a terminal.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const page = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
const example = readFileSync(path.join(root, '.env.example'), 'utf8');

/** .env.example's settings: the value of an active line (its default), undefined for a commented-out one. */
const settings = new Map<string, string | undefined>();
for (const line of example.split('\n')) {
  const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
  if (match && !settings.has(match[2]!)) settings.set(match[2]!, match[1] ? undefined : match[3]!.replace(/^"(.*)"$/, '$1'));
}

/** The page's table rows whose first cell is a setting: its name and its default cell. */
const rows = page.split('\n').flatMap((line) => {
  const match = /^\| `([A-Z][A-Z0-9_]*)` +\| ([^|]+)\|/.exec(line);
  return match ? [{ name: match[1]!, defaultCell: match[2]!.trim() }] : [];
});

describe('docs/configuration.md', () => {
  it('should name, in its tables, every setting .env.example names and no other, each once', () => {
    expect(settings.size).toBeGreaterThan(40);
    expect(rows.map((r) => r.name).sort()).toEqual([...settings.keys()].sort());
  });

  it('should give each setting .env.example sets the same default, in its row or, too long for one, on the page', () => {
    for (const { name, defaultCell } of rows) {
      const value = settings.get(name);
      if (value === undefined) continue;
      const shown = name === 'PUBLIC_URL' ? value.replace(/:8080$/, ':$PORT') : value;
      if (shown.length > 30) expect(page, name).toContain(`\`${shown}\``);
      else expect(defaultCell, name).toContain(`\`${shown}\``);
    }
  });

  it('should keep its lines within 110 characters', () => {
    expect(page.split('\n').filter((line) => line.length > 110)).toEqual([]);
  });
});
