import { Link } from 'react-router';
import { useAppSelector } from '@/app/hooks';
import { Logo } from '@/components/Logo';
import { homeRouteFor } from '@/lib/access';
import { selectUser } from '@/lib/session';

export function LandingHeader() {
  const user = useAppSelector(selectUser);
  return (
    <header className="landing-header">
      <div className="container landing-header__bar">
        <Logo />
        <nav aria-label="Account" className="landing-header__nav">
          {user ? (
            // Each person's home: patients have no dashboard (their images are theirs).
            <Link to={homeRouteFor(user)} className="btn btn--primary">
              Dashboard
            </Link>
          ) : (
            <>
              <Link to="/login" className="btn btn--ghost">
                Login
              </Link>
              <Link to="/register" className="btn btn--primary">
                Register
              </Link>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
