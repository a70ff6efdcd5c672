// The measurements list: what the length and angle tools measured, in
// millimetres when the images carry Pixel Spacing, marked uncalibrated
// (in pixels) when they do not.

export interface Measurement {
  id: string;
  kind: 'length' | 'angle';
  text: string;
}

/** "12.3 mm"; "45.0 px (uncalibrated)" without Pixel Spacing. */
export function formatLength(length: number | undefined, unit: string | undefined): string {
  if (length === undefined || !Number.isFinite(length)) return '–';
  if (unit === 'mm') return `${length.toFixed(1)} mm`;
  return `${length.toFixed(1)} px (uncalibrated)`;
}

/** "37.5°". */
export function formatAngle(angle: number | undefined): string {
  if (angle === undefined || !Number.isFinite(angle)) return '–';
  return `${angle.toFixed(1)}°`;
}

interface AnnotationLike {
  annotationUID?: string;
  metadata?: { toolName?: string };
  data?: { cachedStats?: unknown };
}

interface Stats {
  length?: unknown;
  unit?: unknown;
  angle?: unknown;
}

const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The list's entries of Cornerstone's annotations (length and angle ones). */
export function measurementsOf(annotations: readonly AnnotationLike[]): Measurement[] {
  const list: Measurement[] = [];
  for (const annotation of annotations) {
    const tool = annotation.metadata?.toolName;
    const cached = annotation.data?.cachedStats;
    const stats = (cached && typeof cached === 'object' ? Object.values(cached as Record<string, Stats | undefined>).find(Boolean) : undefined) as
      | Stats
      | undefined;
    const id = annotation.annotationUID ?? String(list.length);
    if (tool === 'Length') list.push({ id, kind: 'length', text: formatLength(num(stats?.length), typeof stats?.unit === 'string' ? stats.unit : undefined) });
    if (tool === 'Angle') list.push({ id, kind: 'angle', text: formatAngle(num(stats?.angle)) });
  }
  return list;
}
