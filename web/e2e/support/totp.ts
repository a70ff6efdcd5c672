// RFC 6238 time-based one-time passwords (SHA-1, 30 s, 6 digits), as an
// authenticator app computes them from the key the Security section shows.
import { createHmac } from 'node:crypto';

const STEP_SECONDS = 30;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, without padding, case and spaces ignored. */
function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The time step of `at` (ms since the epoch). */
export function totpStep(at = Date.now()): number {
  return Math.floor(at / 1000 / STEP_SECONDS);
}

/** The 6-digit code of `secret` for a time step (RFC 4226 dynamic truncation). */
export function totpCode(secret: string, step = totpStep()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const number = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(number).padStart(6, '0');
}

/**
 * A code of a step after `usedStep`: the server takes each step once, so a
 * second code waits (at most 30 s) for the next step. Returns the code and its step.
 */
export async function freshTotp(secret: string, usedStep = -1): Promise<{ code: string; step: number }> {
  while (totpStep() <= usedStep) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const step = totpStep();
  return { code: totpCode(secret, step), step };
}
