import { Link } from 'react-router';
import { useAppSelector } from '@/app/hooks';
import { Logo } from '@/components/Logo';
import { selectIsSignedIn } from '@/lib/session';

export function LandingHeader() {
  const signedIn = useAppSelector(selectIsSignedIn);
  return (
    <header className="landing-header">
      <div className="container landing-header__bar">
        <Logo />
        <nav aria-label="Account" className="landing-header__nav">
          {signedIn ? (
            <Link to="/dashboard" className="btn btn--primary">
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
