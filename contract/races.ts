/** The nine races the client listed: the home page's cards when no race of the catalogue is ahead, and the server's seed. */
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
  /** What the card's image shows, for people who cannot see it. */
  imageAlt: string;
}

const race = (id: string, name: string, date: string, city: string, country: string, imageAlt: string): Race => ({
  id,
  name,
  date,
  city,
  country,
  units: country === 'US' ? ['mi'] : ['mi', 'km'],
  image: `/races/${id}.svg`,
  imageAlt,
});

export const RACES: readonly Race[] = [
  race('sydney-2025', 'Sydney Marathon', '2025-08-31', 'Sydney', 'AU', 'Sydney Harbour Bridge and the Opera House'),
  race('berlin-2025', 'Berlin Marathon', '2025-09-21', 'Berlin', 'DE', 'The Brandenburg Gate and the TV tower'),
  race('long-beach-2025', 'Long Beach Marathon', '2025-10-05', 'Long Beach', 'US', 'Palm trees and a lighthouse by the Pacific at sunset'),
  race('chicago-2025', 'Chicago Marathon', '2025-10-12', 'Chicago', 'US', 'The Chicago skyline over Lake Michigan'),
  race('marine-corps-2025', 'Marine Corps Marathon', '2025-10-26', 'Arlington', 'US', 'The Washington Monument, a flag and the Capitol dome'),
  race('raleigh-2025', 'Raleigh Marathon', '2025-11-02', 'Raleigh', 'US', 'A great oak and the Raleigh skyline'),
  race('nyc-2025', 'NYC Marathon', '2025-11-02', 'New York', 'US', 'The Manhattan skyline and the Brooklyn Bridge'),
  race('every-womans-2025', "Every Woman's Marathon", '2025-11-16', 'Kissimmee', 'US', 'Palm trees over a Florida lake at sunset'),
  race('philadelphia-2025', 'Philadelphia Marathon', '2025-11-23', 'Philadelphia', 'US', 'The Liberty Bell and the art museum steps'),
];
