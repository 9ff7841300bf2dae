import { APP_BADGE_ID } from '../../contract/appBadge';
import { Logo } from './Logo';

/**
 * Top bar of every public page; on the home page it sits over the hero video. Its link to the app
 * leads to the home page's App Store badge, the one place that knows whether the app can be had yet
 * (the other pages are built once and served as they are).
 */
export function SiteHeader({ overlay = false }: { overlay?: boolean }) {
  return (
    <header className={overlay ? 'site-header site-header--overlay' : 'site-header'}>
      <div className="site-header__inner">
        <Logo tone={overlay ? 'light' : 'dark'} />
        <a className="site-header__cta" href={`/#${APP_BADGE_ID}`}>
          The iPhone app
        </a>
      </div>
    </header>
  );
}
