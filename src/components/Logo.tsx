import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../config';

/** The brand mark and name, linking home. */
export function Logo({ tone = 'dark' }: { tone?: 'dark' | 'light' }) {
  return (
    <Link to="/" className={`logo logo--${tone}`} aria-label={`${PRODUCT_NAME} home`}>
      <img src="/icons/icon.svg" alt="" width="32" height="32" />
      <span>{PRODUCT_NAME}</span>
    </Link>
  );
}
