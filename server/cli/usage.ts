/** The admin CLI's words on itself: `help` (every command, one line each) and each command's own usage. */
import { COURSE_LENGTH_TOLERANCE } from '../races/course.js';

interface CommandHelp {
  name: string;
  /** Its options, as typed after the command. */
  options: string;
  /** One line: what it is for. */
  summary: string;
  /** More, for `help <command>` and a mistake: what an option means, what it refuses. */
  more?: string;
}

const SECTIONS: Array<[title: string, commands: CommandHelp[]]> = [
  [
    'Races',
    [
      { name: 'list-races', options: '', summary: 'the races in the catalogue: when each starts, units, whether it has a course' },
      {
        name: 'add-race',
        options: '--id <id> --name "Name" --date YYYY-MM-DD --timezone Area/City --start HH:MM [--units mi|mi,km] [--course course.gpx] [--image card.jpg]',
        summary: 'add a race to the catalogue, with its course and picture if you have them',
        more: "units: mi by default. image: the home page card's JPEG, PNG or WebP. course: a GPX file of the whole course (see set-course).",
      },
      {
        name: 'set-course',
        options: '--race <race-id> --gpx course.gpx',
        summary: "add or replace a race's course",
        more: `The GPX file's track must measure a marathon, 42.195 km within ${COURSE_LENGTH_TOLERANCE * 100} %, start to finish; a file that does not is refused and nothing changes.`,
      },
      {
        name: 'edit-race',
        options: '--id <id> [--date YYYY-MM-DD] [--start HH:MM] [--timezone Area/City] [--name "Name"] [--units mi|mi,km] [--image FILE|none]',
        summary: 'change a race: a start moved on race morning, its name, units or picture',
        more:
          'Every server sees the change at once, with the deadlines of the notes waiting for conversion.\n' +
          "--image sets the home page's picture (none: the generic one).",
      },
      {
        name: 'remove-race',
        options: '--id <id>',
        summary: 'remove a race added by mistake (refused once it has a runner or a link)',
      },
      { name: 'race-history', options: '[--id <id>]', summary: 'every edit and removal, with the race as it was before' },
      {
        name: 'remake-race-pictures',
        options: '',
        summary: 'once after upgrading: make again pictures stored as they were given',
        more: 'Pictures stored before this server made its own are made again as add-race makes them now.',
      },
    ],
  ],
  [
    'Links and notes',
    [
      { name: 'create-link', options: '--runner "Name" --race <race-id>', summary: "make a recorder link for a runner's friends (shown once)" },
      {
        name: 'list-links',
        options: '[--race <race-id>] [--runner "Name"]',
        summary: "a race's or a runner's links: runner, race, notes, live or revoked",
        more:
          "--runner matches any part of the name, in any case. A link's address is not kept (only a hash of it), so it\n" +
          'cannot be shown again: replace-link gives the runner a new one.',
      },
      {
        name: 'replace-link',
        options: '--link <link-id> | --token <token>',
        summary: 'a new link for a runner who lost theirs: the old one stops',
        more: "--link: the id list-links shows, or its first 8 characters or more. The runner's notes stay; friends need the new link.",
      },
      { name: 'revoke-link', options: '--token <token> | --link <link-id>', summary: 'stop a link: its recorder no longer opens; its notes stay' },
      { name: 'list-notes', options: '--token <token> | --link <link-id>', summary: 'the notes sent through a link, and where each stands' },
    ],
  ],
  [
    'Data',
    [
      {
        name: 'backup',
        options: '--to DIR [--objects-bucket NAME]',
        summary: 'copy the database and the audio into a folder while the server runs',
        more: 'DIR must be new or empty. SQLite, or PostgreSQL with pg_dump; audio from disk or S3. With S3 the audio may go to another, empty bucket instead.',
      },
      { name: 'restore', options: '--from DIR', summary: 'bring a backup back into an empty DATA_DIR, database and bucket' },
      {
        name: 'verify-storage',
        options: '',
        summary: "check that every note's audio is in the store; list audio no note names",
        more: 'Exit code 1 when some audio is missing or not the size its row records.',
      },
    ],
  ],
  [
    'Before race weekend',
    [
      {
        name: 'check',
        options: '',
        summary: 'the preflight: database, clock, store, free space, ffmpeg, PUBLIC_URL, sign-in',
        more: "One line each, OK, WARN or FAIL with how to fix it; exit code 1 when any failed. Run it with the server's own settings.",
      },
    ],
  ],
];

const ALL = SECTIONS.flatMap(([, commands]) => commands);
const WIDTH = Math.max(...ALL.map((c) => c.name.length)) + 2;

/** Every command, one line each, by what they are for. */
export const HELP = [
  'Usage: npm run admin -- <command> [options] [--json]',
  '',
  ...SECTIONS.flatMap(([title, commands]) => [title, ...commands.map((c) => `  ${c.name.padEnd(WIDTH)}${c.summary}`)]),
  '',
  '`npm run admin -- help <command>` says its options. At a terminal a result is shown as lines or',
  'a table; piped, or with --json, as one line of JSON (what scripts read).',
].join('\n');

/** One command's usage: its options and what more there is to know; undefined for no such command. */
export function usageOf(name: string): string | undefined {
  const command = ALL.find((c) => c.name === name);
  if (!command) return undefined;
  return [
    `Usage: npm run admin -- ${command.name}${command.options ? ` ${command.options}` : ''}`,
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.more ? [command.more] : []),
  ].join('\n');
}

/** The names `help` lists, for the test that every command is there. */
export const HELPED = ALL.map((c) => c.name);
