// lean-qr (2.7.4) draws the QR code in the browser, so the secret never
// leaves it for an image service. Chosen over `qrcode` for being a few KB
// with no dependencies, typed, and maintained; it is only in the Security
// section's lazily loaded chunk.
import { generate } from 'lean-qr';
import { toSvgDataURL } from 'lean-qr/extras/svg';
import { useMemo } from 'react';

/** The otpauth:// URL as a QR code image, black on white as scanners expect. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const src = useMemo(() => toSvgDataURL(generate(value), { on: 'black', off: 'white', pad: 4, scale: 1 }), [value]);
  return <img className="security__qr" src={src} alt={label} width={200} height={200} />;
}
