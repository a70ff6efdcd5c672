// Cornerstone3D, set up once per page load. This module is imported only by
// the viewer page (a lazily loaded chunk): nothing of Cornerstone is in the
// app's first load.
import {
  cache,
  imageLoader,
  init as initCore,
  metaData,
  setUseCPURendering,
  utilities,
  type Types,
} from '@cornerstonejs/core';
import {
  AngleTool,
  Enums as ToolEnums,
  LengthTool,
  PanTool,
  StackScrollTool,
  ToolGroupManager,
  WindowLevelTool,
  ZoomTool,
  addTool,
  init as initTools,
} from '@cornerstonejs/tools';
import { init as initDicomLoader, wadors } from '@cornerstonejs/dicom-image-loader';
import { api, currentToken, tokenAfterUnauthorized } from '@/lib/api-client';
import { cacheBytes, currentDevice, isSoftwareRenderer } from './cache-size';
import { parseFrameImageId, renderedPath } from './urls';

/** The frames shown as the server's rendered PNG (their frames could not be sent). */
export const previewImageIds = new Set<string>();

/** The bearer token each frame request was sent with: a 401 renews the session only when it is still the current one. */
const sentTokens = new Map<string, string | null>();

let ready: Promise<void> | null = null;

/** Frames in whatever transfer syntax they are stored in (the server does not transcode; the workers decode). */
export const FRAME_ACCEPT = 'multipart/related; type="application/octet-stream"; transfer-syntax=*';

/** Starts Cornerstone, its DICOM loader (decoders in web workers) and tools; resolves once. */
export function startEngine(): Promise<void> {
  ready ??= (async () => {
    initCore();
    // WebGL emulated on the CPU (SwiftShader, llvmpipe: no GPU, as in
    // headless Chromium or a locked-down desktop) uploads each slice as a
    // texture for nothing: Cornerstone's canvas renderer is faster there.
    if (isSoftwareRenderer(webGLRenderer())) setUseCPURendering(true);
    cache.setMaxCacheSize(cacheBytes(currentDevice()));
    initDicomLoader({
      maxWebWorkers: Math.max(1, Math.min(4, Math.floor((navigator.hardwareConcurrency || 2) / 2))),
      // The session's access token, exactly as the app's HTTP client sends it.
      beforeSend: (_xhr, imageId) => {
        const token = currentToken();
        sentTokens.set(imageId, token);
        // The loader's own Accept leaves the type parameter unquoted, which
        // RFC 9110 does not allow for a value with a '/', and the server
        // refuses; this is the same request, quoted: any stored syntax.
        const headers: Record<string, string> = { Accept: FRAME_ACCEPT };
        if (token) headers.Authorization = `Bearer ${token}`;
        return headers;
      },
    });
    // The frames go through one more step: a 401 renews the session and
    // tries once more; a 415 (a transfer syntax the server cannot cut
    // frames from) shows the server's rendered preview instead.
    imageLoader.registerImageLoader('wadors', loadFrame as unknown as Types.ImageLoaderFn);
    imageLoader.registerImageLoader('web', loadWebImage as unknown as Types.ImageLoaderFn);
    metaData.addProvider(webMetadata, 10_000);
    initTools();
    for (const tool of [WindowLevelTool, ZoomTool, PanTool, StackScrollTool, LengthTool, AngleTool]) addTool(tool);
  })();
  return ready;
}

function webGLRenderer(): string | null {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return null;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return renderer;
  } catch {
    return null;
  }
}

interface LoadObject {
  promise: Promise<Types.IImage>;
  cancelFn?: () => void;
}

function statusOf(error: unknown): number | undefined {
  if (typeof XMLHttpRequest !== 'undefined' && error instanceof XMLHttpRequest) return error.status;
  const value = (error as { status?: unknown; request?: { status?: unknown } } | null) ?? null;
  if (typeof value?.status === 'number') return value.status;
  if (typeof value?.request?.status === 'number') return value.request.status;
  return undefined;
}

function bodyOf(error: unknown): unknown {
  const response = (error as { response?: unknown } | null)?.response;
  try {
    if (response instanceof ArrayBuffer) return JSON.parse(new TextDecoder().decode(response));
    if (typeof response === 'string') return JSON.parse(response);
  } catch {
    return undefined;
  }
  return response;
}

function loadFrame(imageId: string, options: Record<string, unknown>): LoadObject {
  const first = wadors.loadImage(imageId, options) as unknown as LoadObject;
  const promise = first.promise.catch(async (error: unknown): Promise<Types.IImage> => {
    const status = statusOf(error);
    if (status === 401) {
      await tokenAfterUnauthorized(sentTokens.get(imageId) ?? null, bodyOf(error));
      return (wadors.loadImage(imageId, options) as unknown as LoadObject).promise;
    }
    const parts = parseFrameImageId(imageId);
    if (status === 415 && parts) {
      const blob = await fetchBlob(renderedPath(parts.study, parts.series, parts.sop), 'image/png');
      previewImageIds.add(imageId);
      return imageFromBlob(imageId, blob);
    }
    throw error;
  });
  return { promise, cancelFn: first.cancelFn };
}

/** A blob through the app's HTTP client (bearer token, renewal on a 401). */
async function fetchBlob(path: string, accept: string): Promise<Blob> {
  const response = await api.get<Blob>(path, { baseURL: '', responseType: 'blob', headers: { Accept: accept } });
  return response.data;
}

/** A JPEG or PNG (its signed content URL) as a Cornerstone image. */
function loadWebImage(imageId: string): LoadObject {
  const url = imageId.slice('web:'.length);
  const controller = new AbortController();
  const promise = (async () => {
    const response = await fetch(url, { signal: controller.signal, credentials: 'same-origin' });
    if (!response.ok) throw Object.assign(new Error(`The image could not be loaded (${response.status}).`), { status: response.status });
    return imageFromBlob(imageId, await response.blob());
  })();
  return { promise, cancelFn: () => controller.abort() };
}

const webSizes = new Map<string, { rows: number; columns: number }>();

/** An RGBA Cornerstone image from a PNG or JPEG blob, decoded by the browser. */
async function imageFromBlob(imageId: string, blob: Blob): Promise<Types.IImage> {
  const bitmap = await createImageBitmap(blob);
  const { width, height } = bitmap;
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('No 2D canvas.');
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  const pixels = new Uint8Array(context.getImageData(0, 0, width, height).data.buffer);
  webSizes.set(imageId, { rows: height, columns: width });
  const voxelManager = utilities.VoxelManager.createImageVoxelManager({ width, height, scalarData: pixels, numberOfComponents: 4 });
  const image = {
    imageId,
    minPixelValue: 0,
    maxPixelValue: 255,
    slope: 1,
    intercept: 0,
    windowCenter: 128,
    windowWidth: 255,
    getPixelData: () => voxelManager.getScalarData(),
    voxelManager,
    rows: height,
    columns: width,
    height,
    width,
    color: true,
    rgba: true,
    numberOfComponents: 4,
    columnPixelSpacing: 1,
    rowPixelSpacing: 1,
    invert: false,
    sizeInBytes: pixels.byteLength,
    dataType: 'Uint8Array',
    imageFrame: {},
  };
  return image as unknown as Types.IImage;
}

/** What Cornerstone asks about a web image: 8-bit RGB, no calibration. */
function webMetadata(type: string, imageId: string): unknown {
  if (!imageId.startsWith('web:')) return undefined;
  const size = webSizes.get(imageId) ?? { rows: 0, columns: 0 };
  switch (type) {
    case 'imagePixelModule':
      return {
        pixelRepresentation: 0,
        bitsAllocated: 8,
        bitsStored: 8,
        highBit: 7,
        photometricInterpretation: 'RGB',
        samplesPerPixel: 3,
        ...size,
      };
    case 'generalSeriesModule':
      return { modality: 'OT', seriesNumber: 1 };
    case 'imagePlaneModule':
      return {
        imageOrientationPatient: [1, 0, 0, 0, 1, 0],
        imagePositionPatient: [0, 0, 0],
        rowCosines: [1, 0, 0],
        columnCosines: [0, 1, 0],
        pixelSpacing: null,
        rowPixelSpacing: null,
        columnPixelSpacing: null,
        frameOfReferenceUID: 'web',
        ...size,
      };
    case 'voiLutModule':
      return { windowWidth: [255], windowCenter: [128] };
    case 'modalityLutModule':
      return { rescaleSlope: 1, rescaleIntercept: 0 };
    default:
      return undefined;
  }
}

/** The tool names the toolbar chooses between for the primary button (or one finger). */
export const PRIMARY_TOOLS = {
  window: WindowLevelTool.toolName,
  zoom: ZoomTool.toolName,
  pan: PanTool.toolName,
  scroll: StackScrollTool.toolName,
  length: LengthTool.toolName,
  angle: AngleTool.toolName,
} as const;

export type PrimaryTool = keyof typeof PRIMARY_TOOLS;

const { MouseBindings } = ToolEnums;

/**
 * The tool group of one viewport: the primary button (one finger) runs the
 * chosen tool; right drag zooms, middle drag pans, the wheel scrolls; two
 * fingers pinch to zoom and pan.
 */
export function createToolGroup(id: string, viewportId: string, renderingEngineId: string, initial: PrimaryTool = 'window') {
  ToolGroupManager.destroyToolGroup(id);
  const group = ToolGroupManager.createToolGroup(id);
  if (!group) throw new Error('No tool group.');
  for (const name of Object.values(PRIMARY_TOOLS)) group.addTool(name);
  group.setToolConfiguration(ZoomTool.toolName, { pinchToZoom: true, pan: true });
  group.addViewport(viewportId, renderingEngineId);
  setPrimaryTool(group, initial);
  return group;
}

export type ToolGroup = NonNullable<ReturnType<typeof ToolGroupManager.createToolGroup>>;

/** Gives the primary button (and one finger) to `tool`, keeping the other bindings. */
export function setPrimaryTool(group: ToolGroup, tool: PrimaryTool) {
  const primary = PRIMARY_TOOLS[tool];
  type Binding = { mouseButton?: number; numTouchPoints?: number };
  const bindings = new Map<string, Binding[]>(Object.values(PRIMARY_TOOLS).map((name) => [name, []]));
  bindings.get(primary)?.push({ mouseButton: MouseBindings.Primary });
  bindings.get(ZoomTool.toolName)?.push({ mouseButton: MouseBindings.Secondary }, { numTouchPoints: 2 });
  bindings.get(PanTool.toolName)?.push({ mouseButton: MouseBindings.Auxiliary });
  bindings.get(StackScrollTool.toolName)?.push({ mouseButton: MouseBindings.Wheel });
  for (const name of bindings.keys()) group.setToolPassive(name, { removeAllBindings: true });
  for (const [name, list] of bindings) {
    if (list.length > 0) group.setToolActive(name, { bindings: list });
  }
}
