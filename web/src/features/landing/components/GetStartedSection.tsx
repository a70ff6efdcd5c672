import { Link } from 'react-router';

export function GetStartedSection() {
  return (
    <section className="get-started" aria-labelledby="get-started-title">
      <div className="container get-started__inner">
        <h2 id="get-started-title">Ready to share medical images securely?</h2>
        <p>
          Create your account as a patient or a health provider and start sharing in a few
          minutes.
        </p>
        <Link to="/register" className="btn btn--light btn--lg">
          Get Started
        </Link>
      </div>
    </section>
  );
}
