import { APP_STORE_URL } from '../config';
import { Logo } from './Logo';

/** Top bar of every public page; on the home page it sits over the hero video. */
export function SiteHeader({ overlay = false }: { overlay?: boolean }) {
  return (
    <header className={overlay ? 'site-header site-header--overlay' : 'site-header'}>
      <div className="site-header__inner">
        <Logo tone={overlay ? 'light' : 'dark'} />
        <a className="site-header__cta" href={APP_STORE_URL}>
          Get the app
        </a>
      </div>
    </header>
  );
}
