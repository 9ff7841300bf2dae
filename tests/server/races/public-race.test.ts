import { describe, expect, it } from 'vitest';
import { RecorderLinkSchema } from '../../../contract/api.js';
import { HomeScreenLinkSchema } from '../../../contract/homeScreenApi.js';
import { RaceSchema } from '../../../contract/raceApi.js';
import { EntrySchema, KeepsakeSchema, RaceListSchema } from '../../../contract/runnerApi.js';
import type { Race, RaceRow } from '../../../server/db/types.js';
import { publicRace } from '../../../server/races/public-race.js';

const row: RaceRow = {
  id: 'berlin-2026',
  name: 'Berlin Marathon',
  date: '2026-09-27',
  units: ['km'],
  timezone: 'Europe/Berlin',
  start: '09:15',
  startsAt: '2026-09-27T07:15:00.000Z',
};
const race: Race = { ...row, hasCourse: false, markers: [{ id: 'km-5', label: '5 km', distanceMeters: 5000 }] };
const at = (iso: string) => Date.parse(iso);

describe('a race as every answer gives it', () => {
  it('should say where the race stands on the clock it is given, and never its local start', () => {
    expect(publicRace(row, at('2026-09-27T07:14:59Z'))).toEqual({
      id: 'berlin-2026',
      name: 'Berlin Marathon',
      date: '2026-09-27',
      timezone: 'Europe/Berlin',
      startsAt: '2026-09-27T07:15:00.000Z',
      when: 'upcoming',
      units: ['km'],
    });
    expect(publicRace(row, at('2026-09-27T07:15:00Z')).when).toBe('live');
    expect(publicRace(row, at('2026-09-28T07:15:00Z')).when).toBe('past');
  });

  it('should give a catalogued race its markers and whether it has a course', () => {
    expect(publicRace(race, at('2026-09-01T00:00:00Z'))).toMatchObject({ hasCourse: false, markers: race.markers, when: 'upcoming' });
    expect(publicRace(row, 0)).not.toHaveProperty('markers');
  });

  it('should be sent by every answer with the race schema’s own fields', () => {
    const races = {
      catalogue: RaceListSchema.properties.races.items,
      recorder: RecorderLinkSchema.properties.race,
      phone: HomeScreenLinkSchema.properties.race,
      entry: EntrySchema.properties.race,
      keepsake: KeepsakeSchema.properties.race,
    };
    for (const [answer, schema] of Object.entries(races)) {
      for (const [field, fieldSchema] of Object.entries(schema.properties)) {
        expect(fieldSchema, `${answer}'s race.${field}`).toBe(RaceSchema.properties[field as keyof typeof RaceSchema.properties]);
      }
    }
  });
});
