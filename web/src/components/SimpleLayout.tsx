import { use, type ReactNode } from 'react';
import { Logo } from './Logo';
import { ShellContext } from './shell-context';
import './SimpleLayout.css';

/**
 * Header with the word mark and a centred main area, for the screens that are
 * not the landing page. Inside the signed-in shell, which has its own header
 * and <main>, only the centred area is drawn.
 */
export function SimpleLayout({ children }: { children: ReactNode }) {
  const inShell = use(ShellContext);
  if (inShell) return <div className="simple-layout__content">{children}</div>;
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
