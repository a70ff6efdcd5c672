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

const PRODUCT_TIME_ZONE = 'Asia/Karachi';

/** The calendar day of `date` in Pakistan, as 'YYYY-MM-DD'. */
function karachiDay(date: Date): string {
  // en-CA writes dates as YYYY-MM-DD.
  return date.toLocaleDateString('en-CA', { timeZone: PRODUCT_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
}

/**
 * A message time (product.md §2 /messages): the time of day for today
 * ('2:30 pm'), 'Yesterday' for yesterday, otherwise the date ('12/05/2025');
 * days as they are in Pakistan (en-PK, Asia/Karachi). `now` is for tests.
 */
export function formatMessageTime(value: string | null | undefined, now: Date = new Date()): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const day = karachiDay(date);
  const today = karachiDay(now);
  if (day === today) {
    return date.toLocaleTimeString('en-PK', { timeZone: PRODUCT_TIME_ZONE, hour: 'numeric', minute: '2-digit' });
  }
  const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
  if (day === yesterday) return 'Yesterday';
  return date.toLocaleDateString('en-PK', { timeZone: PRODUCT_TIME_ZONE });
}
