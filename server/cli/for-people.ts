/**
 * How a command's result reads at a terminal: a table for a list, `name: value` lines for one thing,
 * and a few commands in words of their own. Piped, or with --json, the CLI prints the result as JSON
 * instead (./run-admin.ts); what is shown here is made from that same result, never read elsewhere.
 */

type Fields = Record<string, unknown>;

const isPlain = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 'lengthMeters' -> 'length meters'. */
const words = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** '2026-04-18T07:00:00.000Z' -> '2026-04-18 07:00 UTC'; anything else as it is. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value) && value.every(isPlain)) return value.length === 0 ? 'none' : value.map(shown).join(', ');
  const text = String(value);
  const instant = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?(\.\d+)?Z$/.exec(text);
  return instant ? `${instant[1]} ${instant[2]} UTC` : text;
}

/** Columns as wide as their widest cell, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** One thing as `name: value` lines, what it holds indented under its name; a list of flat things as a table. */
export function fields(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    if (value.every((v) => isFields(v) && Object.values(v).every((x) => isPlain(x) || (Array.isArray(x) && x.every(isPlain))))) {
      const keys = [...new Set(value.flatMap((v) => Object.keys(v as Fields)))];
      const rows = (value as Fields[]).map((v) => keys.map((k) => shown(v[k])));
      return table(
        keys.map((k) => words(k).toUpperCase()),
        rows,
      )
        .split('\n')
        .map((l) => indent + l)
        .join('\n');
    }
    return value.map((v) => fields(v, indent)).join('\n\n');
  }
  if (!isFields(value)) return `${indent}${shown(value)}`;
  return Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) =>
      isPlain(v) || (Array.isArray(v) && v.every(isPlain)) ? `${indent}${words(k)}: ${shown(v)}` : `${indent}${words(k)}:\n${fields(v, `${indent}  `)}`,
    )
    .join('\n');
}

/** A new link, said so that it is copied whole and kept. */
function newLink(result: Fields, what: string): string {
  return [what, '', `  ${result.url}`, '', 'This is the only time it is shown: the server keeps only a hash of it.'].join('\n');
}

/** 'start 09:00 -> 09:30; name A -> B': the fields an edit changed. */
function changeOf(before: Fields, after: Fields): string {
  const changed = Object.keys(after).filter((k) => k !== 'startsAt' && shown(before[k]) !== shown(after[k]));
  return changed.map((k) => `${words(k)} ${shown(before[k])} -> ${shown(after[k])}`).join('; ') || 'nothing';
}

const seconds = (ms: unknown) => (typeof ms === 'number' ? `${(ms / 1000).toFixed(0)} s` : '-');

const VIEWS: Record<string, (result: never) => string> = {
  'list-races': (races: Fields[]) =>
    races.length === 0
      ? 'No races in the catalogue. add-race adds one.'
      : table(
          ['ID', 'NAME', 'STARTS', 'WHEN', 'UNITS', 'COURSE'],
          races.map((r) => [String(r.id), String(r.name), `${r.date} ${r.start} ${r.timezone}`, String(r.when), shown(r.units), shown(r.hasCourse)]),
        ),
  'create-link': (link: Fields) => newLink(link, "The link for the runner's friends:"),
  'replace-link': (link: Fields) => newLink(link, `The new link for ${link.runner}'s friends (${link.race}); the old one no longer opens:`),
  'list-links': (links: Fields[]) =>
    links.length === 0
      ? 'No links found.'
      : [
          table(
            ['LINK', 'RUNNER', 'RACE', 'MADE', 'BY', 'NOTES', 'STATE'],
            links.map((l) => [
              String(l.linkId).slice(0, 12),
              String(l.runner),
              String(l.race),
              shown(l.createdAt),
              String(l.madeBy),
              String(l.notes),
              l.revoked ? `revoked ${shown(l.revokedAt)}` : 'live',
            ]),
          ),
          '',
          "A link's address cannot be shown again: the server keeps only a hash of it. To give a runner a",
          'working link: npm run admin -- replace-link --link <LINK> (the old one stops; the notes stay).',
        ].join('\n'),
  'list-notes': (notes: Fields[]) =>
    notes.length === 0
      ? 'No notes have come through this link yet.'
      : table(
          ['RECEIVED', 'MARKER', 'FROM', 'LENGTH', 'STATUS'],
          notes.map((n) => [
            shown(n.receivedAt),
            String(n.marker),
            String(n.from),
            seconds(n.durationMs),
            n.failureReason ? `${n.status}: ${n.failureReason}` : String(n.status),
          ]),
        ),
  'race-history': (changes: Array<{ raceId: string; at: string; by: string; action: string; before: Fields; after?: Fields }>) =>
    changes.length === 0
      ? 'No race has been edited or removed.'
      : table(
          ['AT', 'BY', 'RACE', 'CHANGE'],
          changes.map((c) => [
            shown(c.at),
            c.by,
            c.raceId,
            c.after ? changeOf(c.before, c.after) : `removed (${c.before.name}, ${c.before.date} ${c.before.start})`,
          ]),
        ),
  'revoke-link': () => 'The link is stopped: its recorder no longer opens. Its notes stay.',
};

/** What a person reads for `command`'s result, ending with a newline. */
export function forPeople(command: string, result: unknown): string {
  const view = VIEWS[command] as ((r: unknown) => string) | undefined;
  return `${view ? view(result) : fields(result)}\n`;
}
