import { describe, expect, it } from 'vitest';
import {
  canonicalTimeZone,
  localSchedule,
  raceDateProblem,
  raceScheduleProblem,
  raceStartsAt,
  raceWhen,
  resolveStart,
  startTimeProblem,
  timeZoneProblem,
} from '../../contract/raceClock.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const at = (iso: string, plusMs = 0) => Date.parse(iso) + plusMs;

describe('the race clock: when a race starts', () => {
  it('should start a late-October US race in summer time and one after the first Sunday of November in standard time', () => {
    // Marine Corps Marathon, 2025-10-26, Arlington: EDT, UTC-4.
    expect(raceStartsAt('2025-10-26', '07:55', 'America/New_York')).toBe('2025-10-26T11:55:00.000Z');
    // NYC Marathon, 2025-11-02: the clocks went back at 02:00 that morning; EST, UTC-5.
    expect(raceStartsAt('2025-11-02', '09:10', 'America/New_York')).toBe('2025-11-02T14:10:00.000Z');
    // The same local start on the Saturday and the Sunday of the change (2026-11-01) is 25 hours apart.
    expect(raceStartsAt('2026-10-31', '07:30', 'America/Chicago')).toBe('2026-10-31T12:30:00.000Z');
    expect(raceStartsAt('2026-11-01', '07:30', 'America/Chicago')).toBe('2026-11-01T13:30:00.000Z');
  });

  it('should start Berlin in late September in summer time, and after the last Sunday of October in winter time', () => {
    expect(raceStartsAt('2025-09-21', '09:15', 'Europe/Berlin')).toBe('2025-09-21T07:15:00.000Z');
    expect(raceStartsAt('2025-10-26', '09:15', 'Europe/Berlin')).toBe('2025-10-26T08:15:00.000Z');
  });

  it('should start a Sydney race at 06:00 on the evening before in UTC, in winter and in summer time', () => {
    expect(raceStartsAt('2025-08-31', '06:00', 'Australia/Sydney')).toBe('2025-08-30T20:00:00.000Z');
    expect(raceStartsAt('2025-12-07', '06:00', 'Australia/Sydney')).toBe('2025-12-06T19:00:00.000Z');
  });

  it('should move a start the clocks skip forward by the jump, and take the first of a start they pass twice', () => {
    // 2026-03-08, New York: 02:00 EST becomes 03:00 EDT, so 02:30 is taken as 03:30 EDT.
    expect(resolveStart('2026-03-08', '02:30', 'America/New_York')).toEqual({ startsAt: '2026-03-08T07:30:00.000Z', fit: 'gap' });
    expect(resolveStart('2026-03-29', '02:30', 'Europe/Berlin')).toEqual({ startsAt: '2026-03-29T01:30:00.000Z', fit: 'gap' });
    // 2026-11-01, New York: 01:30 happens in EDT, then again in EST; the first is taken.
    expect(resolveStart('2026-11-01', '01:30', 'America/New_York')).toEqual({ startsAt: '2026-11-01T05:30:00.000Z', fit: 'overlap' });
    expect(resolveStart('2026-10-25', '02:30', 'Europe/Berlin')).toEqual({ startsAt: '2026-10-25T00:30:00.000Z', fit: 'overlap' });
    // Either side of the change, the clocks are read as they are.
    expect(resolveStart('2026-03-08', '03:00', 'America/New_York')).toEqual({ startsAt: '2026-03-08T07:00:00.000Z', fit: 'exact' });
    expect(resolveStart('2026-11-01', '02:00', 'America/New_York')).toEqual({ startsAt: '2026-11-01T07:00:00.000Z', fit: 'exact' });
  });
});

describe('the race clock: an instant as an operator types it', () => {
  it("should write the local date and minute in the race's zone, across midnight and both summer-time changes", () => {
    // 2025-10-12 02:30 UTC is the evening before in Chicago (CDT, UTC-5) and the morning in Sydney (AEDT, UTC+11).
    expect(localSchedule(at('2025-10-12T02:30:59Z'), 'America/Chicago')).toEqual({ date: '2025-10-11', start: '21:30' });
    expect(localSchedule(at('2025-10-12T02:30:59Z'), 'Australia/Sydney')).toEqual({ date: '2025-10-12', start: '13:30' });
    // Berlin on the night the clocks go back: 01:30 UTC is the second 02:30 (CET), 00:30 UTC the first (CEST).
    expect(localSchedule(at('2025-10-26T00:30:00Z'), 'Europe/Berlin')).toEqual({ date: '2025-10-26', start: '02:30' });
    expect(localSchedule(at('2025-10-26T01:30:00Z'), 'Europe/Berlin')).toEqual({ date: '2025-10-26', start: '02:30' });
    expect(localSchedule(at('2099-10-11T12:30:00Z'), 'America/Chicago')).toEqual({ date: '2099-10-11', start: '07:30' });
  });

  it("should give back the instant, to the minute, when read as a race's start", () => {
    for (const zone of ['America/Chicago', 'Europe/Berlin', 'Australia/Sydney', 'America/New_York']) {
      for (let instant = at('2026-01-01T00:07:00Z'); instant < at('2027-01-01T00:00:00Z'); instant += 97 * HOUR) {
        const { date, start } = localSchedule(instant, zone);
        expect(raceStartsAt(date, start, zone), `${zone} ${new Date(instant).toISOString()}`).toBe(new Date(instant).toISOString());
      }
    }
  });
});

describe('the race clock: where a race stands', () => {
  const startsAt = raceStartsAt('2026-10-11', '07:30', 'America/Chicago');

  it('should say upcoming until the start, live from the start, and past 8 hours after it', () => {
    expect(startsAt).toBe('2026-10-11T12:30:00.000Z');
    expect(raceWhen(startsAt, at(startsAt, -SECOND))).toBe('upcoming');
    expect(raceWhen(startsAt, at(startsAt))).toBe('live');
    expect(raceWhen(startsAt, at(startsAt, SECOND))).toBe('live');
    expect(raceWhen(startsAt, at(startsAt, 8 * HOUR - SECOND))).toBe('live');
    expect(raceWhen(startsAt, at(startsAt, 8 * HOUR))).toBe('past');
    expect(raceWhen(startsAt, new Date(at(startsAt, 8 * HOUR + SECOND)))).toBe('past');
  });

  it('should count 8 real hours for a race that runs across the night the clocks go back', () => {
    // Midnight on 2026-11-01 in New York is 04:00Z; 8 hours later the clocks there say 07:00, not 08:00.
    const night = raceStartsAt('2026-11-01', '00:00', 'America/New_York');
    expect(night).toBe('2026-11-01T04:00:00.000Z');
    expect(raceWhen(night, at('2026-11-01T11:59:59.000Z'))).toBe('live');
    expect(raceWhen(night, at('2026-11-01T12:00:00.000Z'))).toBe('past');
  });

  it('should say a Sydney race is live on the evening before race day in UTC', () => {
    const sydney = raceStartsAt('2025-08-31', '06:00', 'Australia/Sydney');
    expect(raceWhen(sydney, at('2025-08-30T19:59:59.000Z'))).toBe('upcoming');
    expect(raceWhen(sydney, at('2025-08-30T20:00:00.000Z'))).toBe('live');
  });
});

describe('the race clock: what it refuses', () => {
  it('should refuse a date that is not on the calendar, and say why', () => {
    expect(raceDateProblem('2026-02-30')).toBe('2026-02-30 is not a day on the calendar: that month has 28 days.');
    expect(raceDateProblem('2026-04-31')).toBe('2026-04-31 is not a day on the calendar: that month has 30 days.');
    expect(raceDateProblem('2026-13-01')).toBe('2026-13-01 is not a day on the calendar: months go from 01 to 12.');
    expect(raceDateProblem('2026-10-00')).toMatch(/not a day on the calendar/);
    expect(raceDateProblem('Oct 11')).toBe("Give the race date as YYYY-MM-DD, e.g. 2026-10-11; 'Oct 11' is not in that form.");
    expect(raceDateProblem('2026-10-1')).toMatch(/^Give the race date as YYYY-MM-DD/);
    expect(raceDateProblem('1926-10-11')).toBe('The race date 1926-10-11 is not between the years 2000 and 2100: check the year.');
    expect(raceDateProblem('2028-02-29')).toBeNull();
    expect(raceDateProblem('2026-10-11')).toBeNull();
  });

  it('should refuse a start time that is not a time of day, and say why', () => {
    expect(startTimeProblem('25:00')).toBe('25:00 is not a time of day: hours go from 00 to 23 and minutes from 00 to 59.');
    expect(startTimeProblem('24:00')).toMatch(/not a time of day/);
    expect(startTimeProblem('07:60')).toMatch(/not a time of day/);
    expect(startTimeProblem('7:30')).toBe("Give the start time as HH:MM on a 24-hour clock, e.g. 07:30 or 13:05; '7:30' is not in that form.");
    expect(startTimeProblem('7:30 am')).toMatch(/^Give the start time as HH:MM/);
    for (const fine of ['00:00', '07:30', '23:59']) expect(startTimeProblem(fine)).toBeNull();
  });

  it('should refuse a time zone Intl does not know, or one that keeps one offset all year', () => {
    expect(timeZoneProblem('America/Chicgo')).toBe(
      "Unknown time zone 'America/Chicgo'. Give the race city's IANA time zone, e.g. America/Chicago, Europe/Berlin or Australia/Sydney.",
    );
    expect(timeZoneProblem('')).toMatch(/^Unknown time zone/);
    expect(timeZoneProblem(`America/${'x'.repeat(10_000)}`)).toMatch(/^Unknown time zone/);
    for (const fixed of ['EST', 'CET', 'UTC', 'Etc/GMT+5']) {
      expect(timeZoneProblem(fixed)).toBe(
        `'${fixed}' keeps the same offset all year. Give the race city's IANA time zone (Area/City, e.g. America/New_York), which follows its summer time.`,
      );
    }
    for (const zone of ['Australia/Sydney', 'Europe/Berlin', 'America/Los_Angeles', 'America/Chicago', 'America/New_York', 'Asia/Kolkata']) {
      expect(timeZoneProblem(zone)).toBeNull();
    }
  });

  it('should write a zone typed in the wrong case as IANA does, and keep an alias as given', () => {
    expect(timeZoneProblem('america/chicago')).toBeNull();
    expect(canonicalTimeZone('america/chicago')).toBe('America/Chicago');
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    // The clock reads either spelling the same way.
    expect(raceStartsAt('2026-10-11', '07:30', 'america/chicago')).toBe(raceStartsAt('2026-10-11', '07:30', 'America/Chicago'));
  });

  it('should refuse a start the clocks skip that day, and take each part on its own first', () => {
    expect(raceScheduleProblem('2026-03-08', '02:30', 'America/New_York')).toBe(
      "02:30 does not exist on 2026-03-08 in America/New_York: the clocks skip it that night. Give the start time the city's clocks will show.",
    );
    expect(raceScheduleProblem('2026-11-01', '01:30', 'America/New_York')).toBeNull();
    expect(raceScheduleProblem('2026-10-11', '07:30', 'America/Chicago')).toBeNull();
    expect(raceScheduleProblem('2026-02-30', '25:00', 'Mars/Olympus')).toBe(raceDateProblem('2026-02-30'));
    expect(raceScheduleProblem('2026-02-28', '25:00', 'Mars/Olympus')).toBe(startTimeProblem('25:00'));
    expect(raceScheduleProblem('2026-02-28', '07:00', 'Mars/Olympus')).toBe(timeZoneProblem('Mars/Olympus'));
  });
});
