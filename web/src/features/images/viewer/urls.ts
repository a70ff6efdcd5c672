// Where the viewer's pixels come from: DICOMweb (WADO-RS) on the app's own
// origin, through the server's access checks.

const enc = encodeURIComponent;

export function studyPath(study: string): string {
  return `/dicomweb/studies/${enc(study)}`;
}

export function seriesPath(study: string, series: string): string {
  return `${studyPath(study)}/series/${enc(series)}`;
}

export function instancePath(study: string, series: string, sop: string): string {
  return `${seriesPath(study, series)}/instances/${enc(sop)}`;
}

/** WADO-RS metadata of a series (application/dicom+json). */
export function seriesMetadataPath(study: string, series: string): string {
  return `${seriesPath(study, series)}/metadata`;
}

/** The rendered PNG of an instance: the preview shown when its frames cannot be sent. */
export function renderedPath(study: string, series: string, sop: string): string {
  return `${instancePath(study, series, sop)}/rendered`;
}

/** The loader's image id of one frame (from 1): Cornerstone's `wadors:` scheme on a same-origin URL. */
export function frameImageId(study: string, series: string, sop: string, frame: number, origin = location.origin): string {
  return `wadors:${origin}${instancePath(study, series, sop)}/frames/${frame}`;
}

/** The parts of a frame's image id, or null when it is not one. */
export function parseFrameImageId(imageId: string): { study: string; series: string; sop: string; frame: number } | null {
  const match = /^wadors:(?:https?:\/\/[^/]+)?\/dicomweb\/studies\/([^/]+)\/series\/([^/]+)\/instances\/([^/]+)\/frames\/(\d+)$/.exec(imageId);
  if (!match) return null;
  return {
    study: decodeURIComponent(match[1]),
    series: decodeURIComponent(match[2]),
    sop: decodeURIComponent(match[3]),
    frame: Number(match[4]),
  };
}

/** The viewer page of an image object, optionally opened at a series. */
export function viewerHref(imageId: string, series?: string | null): string {
  const path = `/viewer/${enc(imageId)}`;
  return series ? `${path}?series=${enc(series)}` : path;
}

/** A JPEG or PNG shown in the viewer: its own scheme, on the signed content URL. */
export function webImageId(url: string): string {
  return `web:${url}`;
}
