// Line icons for the image cards and the viewer; drawn with currentColor.
import type { ReactNode } from 'react';

interface IconProps {
  className?: string;
}

function Svg({ className, children }: IconProps & { children: ReactNode }) {
  return (
    <svg
      viewBox="0 0 48 48"
      className={className ?? 'media-icon'}
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

/** A page with a folded corner and "PDF" on it. */
export function PdfIcon(props: IconProps) {
  return (
    <Svg {...props}>
      <path d="M12 4h17l9 9v31H12z" />
      <path d="M29 4v9h9" />
      <rect x="6" y="24" width="28" height="13" rx="2" fill="currentColor" stroke="none" />
      <text x="20" y="34" textAnchor="middle" fontSize="9.5" fontWeight="700" fill="#ffffff" stroke="none">
        PDF
      </text>
    </Svg>
  );
}

/** A plain document: a file whose pixels cannot be shown. */
export function DocumentIcon(props: IconProps) {
  return (
    <Svg {...props}>
      <path d="M12 4h17l9 9v31H12z" />
      <path d="M29 4v9h9M18 24h14M18 30h14M18 36h9" />
    </Svg>
  );
}

/** A padlock: content that needs verification first. */
export function LockIcon(props: IconProps) {
  return (
    <Svg {...props}>
      <rect x="10" y="21" width="28" height="21" rx="3" />
      <path d="M16 21v-6a8 8 0 0 1 16 0v6M24 29v6" />
    </Svg>
  );
}
