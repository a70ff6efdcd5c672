/** Ids of the texts that describe a form control: its hint, its error, and any given. */
export function describedBy(id: string, hint?: string, error?: string, extra?: string): string | undefined {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null, extra || null].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}
