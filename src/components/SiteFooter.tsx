import { Link } from 'react-router-dom';
import { SUPPORT_EMAIL } from '../config';
import { Logo } from './Logo';

export function SiteFooter() {
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <div>
          <Logo tone="light" />
          <p className="site-footer__note">Made for runners and the people who cheer for them.</p>
        </div>
        <nav aria-label="Legal and contact">
          <ul className="site-footer__links">
            <li>
              <Link to="/terms">Terms of Service</Link>
            </li>
            <li>
              <Link to="/privacy">Privacy Policy</Link>
            </li>
            <li>
              <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>
            </li>
          </ul>
        </nav>
      </div>
      <p className="site-footer__legal">© MileNotes. All rights reserved.</p>
    </footer>
  );
}
