const ROLE_LABELS: Record<string, string> = {
  patient: 'Patient',
  healthProvider: 'Health Provider',
  admin: 'Admin',
};

/** A role name as people read it ("healthProvider" -> "Health Provider"). */
export function roleLabel(role: string | null | undefined): string {
  if (!role) return 'N/A';
  return ROLE_LABELS[role] ?? role;
}

/**
 * A date in the product's format (product.md §9): en-PK locale, Asia/Karachi
 * time zone. Accepts 'YYYY-MM-DD' or an RFC 3339 time; anything else is shown
 * as given.
 */
export function formatDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleDateString('en-PK', { timeZone: 'Asia/Karachi' });
}

/** The text or 'N/A' when it is missing or blank. */
export function orNA(value: string | null | undefined): string {
  return value && value.trim() !== '' ? value : 'N/A';
}

interface Named {
  firstname?: string | null;
  lastname?: string | null;
}

/** "Ayesha Khan", or '' when neither part is set or there is no person. */
export function fullName(person: Named | null | undefined): string {
  return [person?.firstname, person?.lastname].filter((part) => part && part.trim()).join(' ');
}

/** "Khan, Ayesha" (product.md §2: last name, first name), or ''. */
export function nameLastFirst(person: Named | null | undefined): string {
  return [person?.lastname, person?.firstname].filter((part) => part && part.trim()).join(', ');
}

/** A date and time in the product's format (en-PK, Asia/Karachi), e.g. '12-May-2025, 2:30 pm'. */
export function formatDateTime(value: string | null | undefined): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString('en-PK', { timeZone: 'Asia/Karachi', dateStyle: 'medium', timeStyle: 'short' });
}
