/**
 * Times of day on the race's clocks, for the recorder's race-day lines. One Intl formatter per zone,
 * made once: the picker writes a time per marker on each render, and a new formatter costs far more
 * than a format (contract/dates.ts).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: 'numeric', minute: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** An instant's time of day in the race's zone, as the language reads a clock ('10:41 AM', '10:41'). */
export function raceClockTime(ms: number, timeZone: string, clock: (hours: number, minutes: string) => string): string {
  const parts = formatterFor(timeZone).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '0';
  return clock(Number(part('hour')) % 24, part('minute').padStart(2, '0'));
}
