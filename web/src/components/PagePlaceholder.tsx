import { Link } from 'react-router';
import { SimpleLayout } from './SimpleLayout';
import './PagePlaceholder.css';

interface PagePlaceholderProps {
  title: string;
  /** One line on what the screen will do. */
  note?: string;
}

/** Stand-in for a screen that a later change builds. */
export function PagePlaceholder({ title, note = 'This screen is coming soon.' }: PagePlaceholderProps) {
  return (
    <SimpleLayout>
      <title>{`${title} · MediShare`}</title>
      <section className="placeholder-card" aria-labelledby="page-title">
        <h1 id="page-title">{title}</h1>
        <p className="placeholder-card__note">{note}</p>
        <Link to="/" className="btn btn--primary">
          Back to home
        </Link>
      </section>
    </SimpleLayout>
  );
}
