import type { ReactNode } from 'react';
import { formatDate, fullName, orNA, roleLabel } from '@/lib/format';
import { PROFILE_FIELDS, type ProfileField, type ProfileView } from '@/lib/profile-fields';
import type { User } from '@/types/api';

interface Row {
  label: string;
  value: string | null | undefined;
}

function Section({ id, title, rows }: { id: string; title: string; rows: Row[] }) {
  return (
    <section className="profile-section" aria-labelledby={id}>
      <h2 id={id} className="profile-section__title">
        {title}
      </h2>
      <dl className="profile-section__list">
        {rows.map((row) => (
          <div key={row.label} className="profile-section__row">
            <dt>{row.label}</dt>
            <dd>{orNA(row.value)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The server accepts gender in any case; show it capitalised. */
function capitalize(value: string | null | undefined): string | null {
  if (!value) return null;
  return value.charAt(0).toUpperCase() + value.slice(1).toLowerCase();
}

function initials(user: User): string {
  const letters = [user.firstname, user.lastname]
    .map((part) => part?.trim().charAt(0) ?? '')
    .join('')
    .toUpperCase();
  return letters || (user.username?.charAt(0).toUpperCase() ?? '?');
}

/** The summary card: avatar with initials, name, email, username, role. */
export function ProfileSummary({ user, children }: { user: User; children?: ReactNode }) {
  return (
    <div className="profile-summary">
      <span className="profile-summary__avatar" aria-hidden="true">
        {initials(user)}
      </span>
      <div className="profile-summary__text">
        <p className="profile-summary__name">{fullName(user) || user.username}</p>
        <p className="profile-summary__line">{user.email}</p>
        <p className="profile-summary__line">@{user.username}</p>
        <p className="profile-summary__role">{roleLabel(user.role)}</p>
      </div>
      {children && <div className="profile-summary__actions">{children}</div>}
    </div>
  );
}

/** A field's value as the page shows it: dates in en-PK, gender capitalised. */
function shown(field: ProfileField, user: User): string | null {
  const value = user[field.key];
  if (field.input === 'date') return formatDate(value);
  if (field.input === 'gender') return capitalize(value);
  return value ?? null;
}

type ViewedField = Extract<ProfileField, { view: ProfileView }>;

/** The fields the page shows in a section, in the list's order. */
function viewedIn(section: ProfileView['section']): ViewedField[] {
  return PROFILE_FIELDS.filter((field): field is ViewedField => 'view' in field && field.view.section === section);
}

/** The rows of a section; a field shown only when present is left out when empty. */
function rowsOf(section: ProfileView['section'], user: User): Row[] {
  return viewedIn(section)
    .filter((field) => !('onlyIfPresent' in field.view && field.view.onlyIfPresent) || Boolean(user[field.key]?.trim()))
    .map((field) => ({ label: field.view.label, value: shown(field, user) }));
}

/**
 * The read-only sections of product.md §2 ("/profile"), with the labels the
 * page gives the fields of lib/profile-fields.ts; missing values show 'N/A'.
 */
export function ProfileDetails({ user }: { user: User }) {
  return (
    <div className="profile-sections">
      <Section
        id="profile-personal"
        title="Personal Information"
        rows={[
          { label: 'Full Name', value: fullName(user) },
          { label: 'Email address', value: user.email },
          { label: 'Username', value: user.username },
          ...rowsOf('personal', user),
        ]}
      />
      <Section id="profile-address" title="Adress" rows={rowsOf('address', user)} />
      <Section
        id="profile-medical"
        title="Medical Information"
        rows={[{ label: 'Role', value: roleLabel(user.role) }, ...rowsOf('medical', user)]}
      />
      {viewedIn('bio').map((field) => (
        <section key={field.key} className="profile-section profile-section--wide" aria-labelledby={`profile-${field.key}`}>
          <h2 id={`profile-${field.key}`} className="profile-section__title">
            {field.view.label}
          </h2>
          <p className="profile-section__bio">{orNA(user[field.key])}</p>
        </section>
      ))}
    </div>
  );
}
