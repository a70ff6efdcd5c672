import type { ReactNode } from 'react';
import { SimpleLayout } from '@/components/SimpleLayout';
import '../auth.css';

interface AuthCardProps {
  title: string;
  intro?: ReactNode;
  children: ReactNode;
  /** Links under the form (back home, sign in, register...). */
  footer?: ReactNode;
  wide?: boolean;
}

/** The card every account screen sits in: title, intro, form, links. */
export function AuthCard({ title, intro, children, footer, wide = false }: AuthCardProps) {
  return (
    <SimpleLayout>
      <title>{`${title} · MediShare`}</title>
      <section className={wide ? 'auth-card auth-card--wide' : 'auth-card'} aria-labelledby="page-title">
        <h1 id="page-title" className="auth-card__title">
          {title}
        </h1>
        {intro && <p className="auth-card__intro">{intro}</p>}
        {children}
        {footer && <div className="auth-card__footer">{footer}</div>}
      </section>
    </SimpleLayout>
  );
}
