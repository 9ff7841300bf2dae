/**
 * Owns how a number is read from the environment: every settings file of ./ (index.ts, auth.ts,
 * push.ts) parses its settings with these, so a bad value is refused with one sentence,
 * naming the setting and what it was given, whichever file reads it. Unset or empty: the default.
 */

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, least: number, what: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be ${what}, got '${raw}'`);
  return value;
}

/** A count, a size or a time in the setting's own unit: 1 or more. */
export const positiveInt = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => wholeNumber(env, name, fallback, 1, 'a positive whole number');

/** A time in seconds where 0 is allowed. */
export const wholeSeconds = (env: NodeJS.ProcessEnv, name: string, fallback: number): number =>
  wholeNumber(env, name, fallback, 0, 'a whole number of seconds');
