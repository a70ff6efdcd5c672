// Window presets for CT, in Hounsfield units, and the conversions between
// a window (width and centre, as radiologists say it) and Cornerstone's VOI
// range (lower and upper bounds).

export interface WindowPreset {
  id: string;
  label: string;
  width: number;
  center: number;
  /** The key that applies it (see shortcuts.ts). */
  key: string;
}

/** The usual CT windows. */
export const CT_PRESETS: readonly WindowPreset[] = [
  { id: 'brain', label: 'Brain', width: 80, center: 40, key: '1' },
  { id: 'lung', label: 'Lung', width: 1500, center: -600, key: '2' },
  { id: 'bone', label: 'Bone', width: 2000, center: 300, key: '3' },
  { id: 'abdomen', label: 'Abdomen', width: 400, center: 40, key: '4' },
  { id: 'soft-tissue', label: 'Soft tissue', width: 350, center: 50, key: '5' },
];

export interface VoiRange {
  lower: number;
  upper: number;
}

export interface Window {
  width: number;
  center: number;
}

/** The VOI range of a window (DICOM's linear function, simplified: centre ± width / 2). */
export function voiRangeOf({ width, center }: Window): VoiRange {
  const half = Math.max(1, width) / 2;
  return { lower: center - half, upper: center + half };
}

/** The window of a VOI range. */
export function windowOf({ lower, upper }: VoiRange): Window {
  return { width: upper - lower, center: (upper + lower) / 2 };
}

/** "W 400 L 40": the overlay's window, rounded. */
export function formatWindow(range: VoiRange | null | undefined): string {
  if (!range || !Number.isFinite(range.lower) || !Number.isFinite(range.upper)) return 'W – L –';
  const { width, center } = windowOf(range);
  return `W ${Math.round(width)} L ${Math.round(center)}`;
}

/** The preset whose window the range is (to mark it pressed), or null. */
export function presetOf(range: VoiRange | null | undefined, presets: readonly WindowPreset[] = CT_PRESETS): WindowPreset | null {
  if (!range) return null;
  const { width, center } = windowOf(range);
  return presets.find((preset) => Math.abs(preset.width - width) < 0.5 && Math.abs(preset.center - center) < 0.5) ?? null;
}
