import { Link } from 'react-router';
import './Logo.css';

/** The MediShare word mark; links home. */
export function Logo({ inverted = false }: { inverted?: boolean }) {
  return (
    <Link to="/" className={inverted ? 'logo logo--inverted' : 'logo'}>
      <svg className="logo__mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <path
          d="M16 2.5 4.5 6.8v8.4c0 7 4.9 12.6 11.5 14.3 6.6-1.7 11.5-7.3 11.5-14.3V6.8L16 2.5Z"
          className="logo__shield"
        />
        <path d="M13.9 9.5h4.2v4.4h4.4v4.2h-4.4v4.4h-4.2v-4.4H9.5v-4.2h4.4V9.5Z" className="logo__cross" />
      </svg>
      <span className="logo__text">MediShare</span>
    </Link>
  );
}
