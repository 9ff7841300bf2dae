import { SiteFooter } from '../components/SiteFooter';
import { SiteHeader } from '../components/SiteHeader';
import { Hero } from './home/Hero';
import { HowItWorks } from './home/HowItWorks';
import { RaceCarousel } from './home/RaceCarousel';
import { RaceRequest } from './home/RaceRequest';

export const title = 'MileNotes · Voice notes for every mile of your marathon';
export const description = 'Friends and family record voice notes at the mile markers of your marathon; MileNotes plays each one as you reach it on race day.';

export function HomePage() {
  return (
    <>
      <SiteHeader overlay />
      <main>
        <Hero />
        <HowItWorks />
        <RaceCarousel />
        <RaceRequest />
      </main>
      <SiteFooter />
    </>
  );
}
