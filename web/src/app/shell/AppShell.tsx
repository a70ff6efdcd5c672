import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useState } from 'react';
import { NavLink, Outlet } from 'react-router';
import { Logo } from '@/components/Logo';
import { ShellContext } from '@/components/shell-context';
import { useLogout } from '@/features/auth/use-logout';
import { useGetChatListQuery } from '@/features/messages/api';
import { totalUnread } from '@/features/messages/cache';
import { unreadLabel } from '@/features/messages/labels';
import { needsMfaEnrolment } from '@/lib/access';
import { selectUser } from '@/lib/session';
import { useAppSelector } from '../hooks';
import { menuFor } from './menu';
import './AppShell.css';

/**
 * The frame of every signed-in page: a top bar with the user's name and
 * Logout, the side menu of what the user may use, and the page. Under 1024 px the
 * menu folds away behind a Menu button and carries its own Logout.
 */
export function AppShell() {
  const user = useAppSelector(selectUser);
  const logout = useLogout();
  const [open, setOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const items = menuFor(user);
  const name = user ? `${user.firstname} ${user.lastname}`.trim() : '';
  // The chat list's unread counts, kept current by the message stream.
  const { data: chats } = useGetChatListQuery(user && !needsMfaEnrolment(user) ? undefined : skipToken);
  const unread = totalUnread(chats);

  async function onLogout() {
    setOpen(false);
    setLeaving(true);
    await logout();
  }

  // Escape folds the open menu (narrow screens) and returns to its button.
  useEffect(() => {
    if (!open) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape' || document.querySelector('[aria-modal="true"]')) return;
      setOpen(false);
      document.getElementById('main-menu-button')?.focus();
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open]);

  return (
    <ShellContext value={true}>
      <div className="shell">
        <header className="shell__topbar">
          <button
            type="button"
            id="main-menu-button"
            className="shell__menu-button"
            aria-expanded={open}
            aria-controls="main-menu"
            onClick={() => setOpen((shown) => !shown)}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" className="shell__menu-icon">
              {open ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
            </svg>
            Menu
          </button>
          <Logo />
          <div className="shell__account">
            {name && (
              <span className="shell__user">
                <span className="visually-hidden">Signed in as </span>
                {name}
              </span>
            )}
            <button
              type="button"
              className="btn btn--outline btn--small shell__logout"
              onClick={() => void onLogout()}
              disabled={leaving}
            >
              Logout
            </button>
          </div>
        </header>
        <div className="shell__body">
          <nav
            id="main-menu"
            aria-label="Main"
            className={open ? 'shell__nav shell__nav--open' : 'shell__nav'}
          >
            <ul className="shell__menu">
              {items.map((item) => (
                <li key={item.to}>
                  <NavLink
                    to={item.to}
                    end={item.to === '/'}
                    className="shell__link"
                    onClick={() => setOpen(false)}
                  >
                    {item.label}
                    {item.to === '/messages' && unread > 0 && (
                      <>
                        {' '}
                        <span className="shell__badge" aria-hidden="true">
                          {unreadLabel(unread)}
                        </span>
                        <span className="visually-hidden">{`(${unread} unread)`}</span>
                      </>
                    )}
                  </NavLink>
                </li>
              ))}
              <li className="shell__menu-logout">
                <button
                  type="button"
                  className="shell__link shell__link--button"
                  onClick={() => void onLogout()}
                  disabled={leaving}
                >
                  Logout
                </button>
              </li>
            </ul>
          </nav>
          <main id="main-content" tabIndex={-1} className="shell__main">
            <Outlet />
          </main>
        </div>
      </div>
    </ShellContext>
  );
}
