import type { ReactNode } from 'react';
import { Logo } from './Logo';
import './SimpleLayout.css';

/** Header with the word mark and a centred main area, for the screens that are not the landing page. */
export function SimpleLayout({ children }: { children: ReactNode }) {
  return (
    <div className="simple-layout">
      <header className="simple-layout__header">
        <div className="container simple-layout__bar">
          <Logo />
        </div>
      </header>
      <main id="main-content" className="simple-layout__main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
