/** The races MileNotes supports (SPEC §3), shared by the home page carousel and the server's seed. */
export type DistanceUnit = 'mi' | 'km';

export interface Race {
  id: string;
  name: string;
  /** ISO date of race day, local to the race. */
  date: string;
  city: string;
  country: string;
  /** Races outside the US carry kilometre markers as well as miles. */
  units: readonly DistanceUnit[];
  /** Card image under public/. */
  image: string;
}

const race = (id: string, name: string, date: string, city: string, country: string): Race => ({
  id,
  name,
  date,
  city,
  country,
  units: country === 'US' ? ['mi'] : ['mi', 'km'],
  image: `/races/${id}.svg`,
});

export const RACES: readonly Race[] = [
  race('sydney-2025', 'Sydney Marathon', '2025-08-31', 'Sydney', 'AU'),
  race('berlin-2025', 'Berlin Marathon', '2025-09-21', 'Berlin', 'DE'),
  race('long-beach-2025', 'Long Beach Marathon', '2025-10-05', 'Long Beach', 'US'),
  race('chicago-2025', 'Chicago Marathon', '2025-10-12', 'Chicago', 'US'),
  race('marine-corps-2025', 'Marine Corps Marathon', '2025-10-26', 'Arlington', 'US'),
  race('raleigh-2025', 'Raleigh Marathon', '2025-11-02', 'Raleigh', 'US'),
  race('nyc-2025', 'NYC Marathon', '2025-11-02', 'New York', 'US'),
  race('every-womans-2025', "Every Woman's Marathon", '2025-11-16', 'Kissimmee', 'US'),
  race('philadelphia-2025', 'Philadelphia Marathon', '2025-11-23', 'Philadelphia', 'US'),
];
