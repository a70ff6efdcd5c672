import type { ReactNode } from 'react';
import { formatDate, fullName, orNA, roleLabel } from '@/lib/format';
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

/** The read-only sections of product.md §2 ("/profile"); missing values show 'N/A'. */
export function ProfileDetails({ user }: { user: User }) {
  const medical: Row[] = [
    { label: 'Role', value: roleLabel(user.role) },
    { label: 'Blood Group', value: user.bloodgroup },
    { label: 'License No', value: user.licensenumber },
    { label: 'Insurance No', value: user.insurancenumber },
  ];
  if (user.primphysician?.trim()) medical.push({ label: 'Primphysician', value: user.primphysician });
  if (user.specialization?.trim()) medical.push({ label: 'Specialization', value: user.specialization });

  return (
    <div className="profile-sections">
      <Section
        id="profile-personal"
        title="Personal Information"
        rows={[
          { label: 'Full Name', value: fullName(user) },
          { label: 'Email address', value: user.email },
          { label: 'Username', value: user.username },
          { label: 'Phone Number', value: user.phone },
          { label: 'Date of Birth', value: formatDate(user.dob) },
          { label: 'Gender', value: capitalize(user.gender) },
        ]}
      />
      <Section
        id="profile-address"
        title="Adress"
        rows={[
          { label: 'Address', value: user.address },
          { label: 'Country', value: user.country },
          { label: 'City', value: user.city },
          { label: 'State', value: user.state },
          { label: 'Zip Code', value: user.zipcode },
        ]}
      />
      <Section id="profile-medical" title="Medical Information" rows={medical} />
      <section className="profile-section profile-section--wide" aria-labelledby="profile-bio">
        <h2 id="profile-bio" className="profile-section__title">
          User Bio
        </h2>
        <p className="profile-section__bio">{orNA(user.bio)}</p>
      </section>
    </div>
  );
}
