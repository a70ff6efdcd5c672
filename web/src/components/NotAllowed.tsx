import { Link } from 'react-router';
import './PagePlaceholder.css';

/** What someone sees on a screen they may not use; the server refuses its calls anyway. */
export function NotAllowed({ backTo, reason = 'This page is for administrators only.' }: { backTo: string; reason?: string }) {
  return (
    <section className="placeholder-card" aria-labelledby="not-allowed-title">
      <title>Not allowed · MediShare</title>
      <h1 id="not-allowed-title">Not allowed</h1>
      <p className="placeholder-card__note">{reason}</p>
      <Link to={backTo} className="btn btn--primary">
        Back to your start page
      </Link>
    </section>
  );
}
