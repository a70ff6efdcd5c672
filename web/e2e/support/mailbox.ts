import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { e2eDataDir } from './paths';

/**
 * The development server writes every mail as an .eml file into
 * <data>/mail/ (names sort by time; plain text, 8bit; To: and Subject:
 * headers). These helpers wait for the newest one to an address.
 */
export const mailDir = path.join(e2eDataDir, 'mail');

export const CONFIRMATION_SUBJECT = 'Your MediShare confirmation code';
export const RESET_SUBJECT = 'Your MediShare password reset code';

export interface MailMessage {
  file: string;
  to: string;
  subject: string;
  body: string;
}

interface WaitOptions {
  /** Only mail written at or after this time (ms since the epoch). */
  since?: number;
  timeoutMs?: number;
}

/** Headers (unfolded, keys lowercased) and body of an RFC 5322 message. */
function parse(raw: string): { headers: Record<string, string>; body: string } {
  const text = raw.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  let body = split === -1 ? '' : text.slice(split + 2);
  const headers: Record<string, string> = {};
  let last = '';
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    headers[last] = line.slice(colon + 1).trim();
  }
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    body = body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return { headers, body };
}

async function newestMatching(to: string, subject: string, since: number): Promise<MailMessage | null> {
  let names: string[];
  try {
    names = (await readdir(mailDir)).filter((name) => name.endsWith('.eml')).sort();
  } catch {
    return null; // no mail yet
  }
  const address = to.toLowerCase();
  for (const name of names.reverse()) {
    const file = path.join(mailDir, name);
    // A little slack: file times and Date.now() may round differently.
    if ((await stat(file)).mtimeMs < since - 2000) continue;
    const { headers, body } = parse(await readFile(file, 'utf8'));
    if ((headers.to ?? '').toLowerCase().includes(address) && headers.subject === subject) {
      return { file, to: headers.to, subject: headers.subject, body };
    }
  }
  return null;
}

/** Polls the mail folder (up to 10 s) for the newest message to `to` with `subject`. */
export async function waitForMail(to: string, subject: string, options: WaitOptions = {}): Promise<MailMessage> {
  const { since = 0, timeoutMs = 10_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await newestMatching(to, subject, since);
    if (found) return found;
    if (Date.now() >= deadline) {
      throw new Error(`No mail "${subject}" to ${to} in ${mailDir} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function match(body: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(body);
  if (!found) throw new Error(`The mail has no ${what}:\n${body}`);
  return found[1];
}

/** The 4-digit code of the newest confirmation mail to `to`. */
export async function readConfirmationCode(to: string, options?: WaitOptions): Promise<string> {
  const mail = await waitForMail(to, CONFIRMATION_SUBJECT, options);
  return match(mail.body, /Your confirmation code is (\d{4})\./, 'confirmation code');
}

/** The 6-digit code and the /reset-password link of the newest reset mail to `to`. */
export async function readPasswordReset(
  to: string,
  options?: WaitOptions,
): Promise<{ code: string; link: string; path: string }> {
  const mail = await waitForMail(to, RESET_SUBJECT, options);
  const code = match(mail.body, /Your password reset code is (\d{6})\./, 'reset code');
  const link = match(mail.body, /(https?:\/\/[^\s<>"]*\/reset-password\?token=[^\s<>"]+)/, 'reset link');
  const url = new URL(link);
  // The path and query only: the mail names the public address, the tests run on their own port.
  return { code, link, path: `${url.pathname}${url.search}` };
}
