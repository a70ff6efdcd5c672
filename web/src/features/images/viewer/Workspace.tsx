import { Enums, RenderingEngine, eventTarget, type Types } from '@cornerstonejs/core';
import { annotation, Enums as ToolEnums, ToolGroupManager, utilities as toolUtilities } from '@cornerstonejs/tools';
import { wadors } from '@cornerstonejs/dicom-image-loader';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { Modal } from '@/components/Modal';
import type { StudySeries } from '@/types/images';
import { cacheBytes, currentDevice, prefetchCount } from './cache-size';
import { createToolGroup, previewImageIds, setPrimaryTool, startEngine, type PrimaryTool, type ToolGroup } from './engine';
import { measurementsOf, type Measurement } from './measurements';
import { CT_PRESETS, formatWindow, presetOf, voiRangeOf, type VoiRange } from './presets';
import { askForSeries, forgetSeries, numberOf, stackOf, takeSeries, TAG, textOf, type DicomJson, type Frame } from './series';
import { actionForKey, keyLabel, shortcutOf, SHORTCUTS, type ViewerAction } from './shortcuts';
import { SeriesPanel } from './SeriesPanel';
import { webImageId } from './urls';

/** What the workspace shows: a study's series over WADO-RS, or one web image (JPEG, PNG). */
export type ViewerSource =
  | { kind: 'study'; studyUid: string; series: StudySeries[]; initialSeries: string | null }
  | { kind: 'web'; url: string };

interface Stack {
  frames: Frame[];
  head: DicomJson | null;
  calibrated: boolean;
}

const TOOLS: { id: PrimaryTool; label: string }[] = [
  { id: 'window', label: 'Window / level' },
  { id: 'zoom', label: 'Zoom' },
  { id: 'pan', label: 'Pan' },
  { id: 'scroll', label: 'Scroll' },
  { id: 'length', label: 'Length' },
  { id: 'angle', label: 'Angle' },
];

const FPS_CHOICES = [5, 10, 15, 20, 30];

/** On a touch screen one finger scrolls the series; with a mouse the left button windows. */
function initialTool(): PrimaryTool {
  return typeof window !== 'undefined' && window.matchMedia?.('(pointer: coarse)').matches ? 'scroll' : 'window';
}

let workspaces = 0;

function seriesLabel(head: DicomJson | null, fallback: StudySeries | undefined): string {
  const number = head ? numberOf(head, TAG.seriesNumber) : fallback?.seriesNumber ?? undefined;
  const description = head ? textOf(head, TAG.seriesDescription) : (fallback?.description ?? '');
  return [number === undefined || number === null ? 'Series' : `Series ${number}`, description].filter(Boolean).join(': ');
}

/** The viewer itself: toolbar, viewport with its overlay, series panel, measurements, help. */
export function Workspace({ source, title }: { source: ViewerSource; title: string }) {
  const [instance] = useState(() => (workspaces += 1));
  const ids = useMemo(
    () => ({ engine: `medishare-engine-${instance}`, viewport: `medishare-viewport-${instance}`, group: `medishare-tools-${instance}` }),
    [instance],
  );
  const rootRef = useRef<HTMLDivElement>(null);
  const elementRef = useRef<HTMLDivElement>(null);
  const engineRef = useRef<RenderingEngine | null>(null);
  const groupRef = useRef<ToolGroup | null>(null);
  const [engineReady, setEngineReady] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [seriesUid, setSeriesUid] = useState<string | null>(
    source.kind === 'study' ? (source.initialSeries ?? source.series[0]?.seriesInstanceUid ?? null) : null,
  );
  const [stack, setStack] = useState<Stack | null>(null);
  const [index, setIndex] = useState(0);
  // The image asked for last: key repeats come faster than React renders, so
  // each step counts from here, not from the (older) rendered state.
  const wantedRef = useRef(0);
  const lastStepAt = useRef(0);
  const [voi, setVoi] = useState<VoiRange | null>(null);
  const [zoom, setZoom] = useState(1);
  // The zoom of the image fitted to the viewport: the overlay's 100% (the
  // CPU and GPU renderers count zoom from different origins).
  const fitZoom = useRef(1);
  const [tool, setTool] = useState<PrimaryTool>(initialTool);
  const toolRef = useRef(tool);
  toolRef.current = tool;
  const [inverted, setInverted] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [fps, setFps] = useState(15);
  const [showIdentifiers, setShowIdentifiers] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const [fullScreen, setFullScreen] = useState(false);
  const [measurements, setMeasurements] = useState<Measurement[]>([]);
  const [preview, setPreview] = useState(false);
  const [loadingImage, setLoadingImage] = useState(true);
  const sliderId = useId();
  const fpsId = useId();

  const viewport = useCallback((): Types.IStackViewport | null => {
    const engine = engineRef.current;
    return engine ? ((engine.getViewport(ids.viewport) as Types.IStackViewport | undefined) ?? null) : null;
  }, [ids.viewport]);

  // The chosen series' metadata, fetched while the engine starts.
  const studyUid = source.kind === 'study' ? source.studyUid : null;
  useEffect(() => {
    if (!studyUid || !seriesUid) return;
    void askForSeries(studyUid, seriesUid);
    // Not taken (the page closed first): nothing keeps it.
    return () => forgetSeries(studyUid, seriesUid);
  }, [studyUid, seriesUid]);

  // The engine, the viewport and its tools, once.
  useEffect(() => {
    let cancelled = false;
    const element = elementRef.current;
    if (!element) return;
    startEngine()
      .then(() => {
        if (cancelled) return;
        const engine = new RenderingEngine(ids.engine);
        engineRef.current = engine;
        engine.enableElement({ viewportId: ids.viewport, type: Enums.ViewportType.STACK, element });
        groupRef.current = createToolGroup(ids.group, ids.viewport, ids.engine, toolRef.current);
        setEngineReady(true);
      })
      .catch((error: unknown) => {
        console.error('The viewer could not start', error);
        if (!cancelled) setFailure('The viewer could not start in this browser.');
      });
    const onResize = () => engineRef.current?.resize(true, false);
    const observer = new ResizeObserver(onResize);
    observer.observe(element);
    return () => {
      cancelled = true;
      observer.disconnect();
      toolUtilities.stackPrefetch.disable(element);
      ToolGroupManager.destroyToolGroup(ids.group);
      engineRef.current?.destroy();
      engineRef.current = null;
    };
  }, [ids]);

  // The viewport's events: the image shown, its window, its zoom.
  useEffect(() => {
    const element = elementRef.current;
    if (!engineReady || !element) return;
    // The viewport draws before its first image has come (an empty frame on
    // start and on resize): data-rendered counts frames with an image only.
    let hasImage = false;
    const onNewImage = (event: Event) => {
      hasImage = true;
      const detail = (event as CustomEvent<{ imageIdIndex: number; imageId: string }>).detail;
      setIndex(detail.imageIdIndex);
      // The wheel and touch scroll move the stack themselves: follow them,
      // unless a key's step is still on its way.
      if (performance.now() - lastStepAt.current > 250) wantedRef.current = detail.imageIdIndex;
      setPreview(previewImageIds.has(detail.imageId));
      setLoadingImage(false);
    };
    const onVoi = (event: Event) => {
      const range = (event as CustomEvent<{ range?: VoiRange }>).detail.range;
      if (range) setVoi({ lower: range.lower, upper: range.upper });
    };
    const onCamera = () => {
      const port = viewport();
      if (port) setZoom(port.getZoom());
    };
    const onRendered = () => {
      if (!hasImage) return;
      setLoadingImage(false);
      element.dataset.rendered = String(Number(element.dataset.rendered ?? '0') + 1);
    };
    element.addEventListener(Enums.Events.STACK_NEW_IMAGE, onNewImage);
    element.addEventListener(Enums.Events.VOI_MODIFIED, onVoi);
    element.addEventListener(Enums.Events.CAMERA_MODIFIED, onCamera);
    element.addEventListener(Enums.Events.IMAGE_RENDERED, onRendered);
    const onAnnotations = () => setMeasurements(measurementsOf(annotation.state.getAllAnnotations()));
    const annotationEvents = [
      ToolEnums.Events.ANNOTATION_COMPLETED,
      ToolEnums.Events.ANNOTATION_MODIFIED,
      ToolEnums.Events.ANNOTATION_REMOVED,
    ];
    for (const name of annotationEvents) eventTarget.addEventListener(name, onAnnotations);
    return () => {
      element.removeEventListener(Enums.Events.STACK_NEW_IMAGE, onNewImage);
      element.removeEventListener(Enums.Events.VOI_MODIFIED, onVoi);
      element.removeEventListener(Enums.Events.CAMERA_MODIFIED, onCamera);
      element.removeEventListener(Enums.Events.IMAGE_RENDERED, onRendered);
      for (const name of annotationEvents) eventTarget.removeEventListener(name, onAnnotations);
    };
  }, [engineReady, viewport]);

  // The stack: a series' frames (WADO-RS) or the one web image.
  useEffect(() => {
    if (!engineReady) return;
    const controller = new AbortController();
    const element = elementRef.current;
    async function show() {
      setLoadingImage(true);
      setFailure(null);
      setPlaying(false);
      let next: Stack;
      let bytesPerFrame = 512 * 512 * 2;
      if (source.kind === 'web') {
        next = { frames: [{ imageId: webImageId(source.url), sop: '', instanceNumber: null, frame: 1, frames: 1 }], head: null, calibrated: false };
      } else {
        if (!seriesUid) return;
        const instances = await takeSeries(source.studyUid, seriesUid);
        const loaded = stackOf(source.studyUid, seriesUid, instances, (imageId, data) => wadors.metaDataManager.add(imageId, data as never));
        next = loaded;
        bytesPerFrame = loaded.bytesPerFrame;
      }
      if (controller.signal.aborted) return;
      const port = viewport();
      if (!port || next.frames.length === 0) {
        setFailure('This series has no images to show.');
        return;
      }
      setStack(next);
      setIndex(0);
      wantedRef.current = 0;
      annotation.state.removeAllAnnotations();
      setMeasurements([]);
      await port.setStack(
        next.frames.map((frame) => frame.imageId),
        0,
      );
      if (controller.signal.aborted) return;
      port.render();
      const properties = port.getProperties();
      if (properties.voiRange) setVoi(properties.voiRange);
      setInverted(Boolean(properties.invert));
      fitZoom.current = port.getZoom() || 1;
      setZoom(port.getZoom());
      if (element && next.frames.length > 1) {
        toolUtilities.stackPrefetch.setConfiguration({
          maxImagesToPrefetch: prefetchCount(cacheBytes(currentDevice()), bytesPerFrame, next.frames.length),
          preserveExistingPool: false,
        });
        toolUtilities.stackPrefetch.enable(element);
      }
    }
    show().catch((error: unknown) => {
      if (controller.signal.aborted) return;
      console.error('The viewer could not load the images', error);
      setFailure('The images could not be loaded.');
      setLoadingImage(false);
    });
    return () => controller.abort();
  }, [engineReady, seriesUid, source, viewport]);

  const total = stack?.frames.length ?? 0;

  const go = useCallback(
    (target: number) => {
      const port = viewport();
      if (!port || total === 0) return;
      const clamped = Math.max(0, Math.min(total - 1, target));
      wantedRef.current = clamped;
      lastStepAt.current = performance.now();
      setIndex(clamped);
      void port.setImageIdIndex(clamped);
    },
    [total, viewport],
  );

  // Cine: the next frame at the chosen rate, round and round.
  useEffect(() => {
    if (!playing || total < 2) return;
    const timer = window.setInterval(() => {
      const port = viewport();
      if (!port) return;
      const next = (wantedRef.current + 1) % total;
      wantedRef.current = next;
      void port.setImageIdIndex(next);
    }, 1000 / fps);
    return () => window.clearInterval(timer);
  }, [playing, fps, total, viewport]);

  useEffect(() => {
    const onChange = () => setFullScreen(document.fullscreenElement === rootRef.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const chooseTool = useCallback((next: PrimaryTool) => {
    setTool(next);
    if (groupRef.current) setPrimaryTool(groupRef.current, next);
  }, []);

  const applyWindow = useCallback(
    (range: VoiRange) => {
      const port = viewport();
      if (!port) return;
      port.setProperties({ voiRange: range });
      port.render();
      setVoi(range);
    },
    [viewport],
  );

  const run = useCallback(
    (action: ViewerAction) => {
      const port = viewport();
      if (action.startsWith('preset:')) {
        const preset = CT_PRESETS.find((candidate) => `preset:${candidate.id}` === action);
        if (preset) applyWindow(voiRangeOf(preset));
        return;
      }
      switch (action) {
        case 'next':
          return go(wantedRef.current + 1);
        case 'previous':
          return go(wantedRef.current - 1);
        case 'first':
          return go(0);
        case 'last':
          return go(total - 1);
        case 'tool-window':
          return chooseTool('window');
        case 'tool-zoom':
          return chooseTool('zoom');
        case 'tool-pan':
          return chooseTool('pan');
        case 'tool-scroll':
          return chooseTool('scroll');
        case 'tool-length':
          return chooseTool('length');
        case 'tool-angle':
          return chooseTool('angle');
        case 'help':
          return setHelpOpen(true);
        case 'identifiers':
          return setShowIdentifiers((shown) => !shown);
        case 'cine':
          return setPlaying((on) => !on && total > 1);
        case 'fullscreen': {
          const root = rootRef.current;
          if (!root) return;
          if (document.fullscreenElement) void document.exitFullscreen();
          else void root.requestFullscreen?.().catch(() => undefined);
          return;
        }
      }
      if (!port) return;
      switch (action) {
        case 'zoom-in':
        case 'zoom-out':
          port.setZoom(port.getZoom() * (action === 'zoom-in' ? 1.25 : 0.8));
          break;
        case 'invert': {
          const invert = !port.getProperties().invert;
          port.setProperties({ invert });
          setInverted(invert);
          break;
        }
        case 'rotate': {
          const rotation = ((port.getViewPresentation().rotation ?? 0) + 90) % 360;
          port.setViewPresentation({ rotation });
          break;
        }
        case 'flip-horizontal':
          port.setViewPresentation({ flipHorizontal: !port.getViewPresentation().flipHorizontal });
          break;
        case 'flip-vertical':
          port.setViewPresentation({ flipVertical: !port.getViewPresentation().flipVertical });
          break;
        case 'reset': {
          port.resetCamera();
          port.resetProperties();
          fitZoom.current = port.getZoom() || 1;
          const properties = port.getProperties();
          if (properties.voiRange) setVoi(properties.voiRange);
          setInverted(Boolean(properties.invert));
          break;
        }
      }
      port.render();
      setZoom(port.getZoom());
    },
    [applyWindow, chooseTool, go, total, viewport],
  );

  // The keyboard shortcuts, while no dialog is open and no field has the focus.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (helpOpen) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest('input, select, textarea, [role="dialog"]')) return;
      const action = actionForKey(event);
      if (!action) return;
      // Space and Enter on a focused button press it; leave them to the button.
      if (target?.closest('button, a') && (event.key === ' ' || event.key === 'Enter')) return;
      event.preventDefault();
      run(action);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [helpOpen, run]);

  const current = stack?.frames[index];
  const head = stack?.head ?? null;
  const currentSeries = source.kind === 'study' ? source.series.find((entry) => entry.seriesInstanceUid === seriesUid) : undefined;
  const activePreset = presetOf(voi);
  const isCt = source.kind === 'study' && (head ? textOf(head, TAG.modality) === 'CT' : currentSeries?.modality === 'CT');

  const button = (label: string, action: ViewerAction, content: ReactNode, pressed?: boolean) => (
    <button
      type="button"
      className="dv-btn"
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      onClick={() => run(action)}
    >
      {content}
    </button>
  );

  return (
    <div ref={rootRef} className={`dv${fullScreen ? ' dv--full' : ''}`}>
      <div className="dv__toolbar" role="toolbar" aria-label="Viewer tools">
        <div className="dv__group" role="group" aria-label="Mouse and touch tool">
          {TOOLS.map((entry) => (
            <button
              key={entry.id}
              type="button"
              className="dv-btn"
              aria-pressed={tool === entry.id}
              title={`${entry.label} (${shortcutOf(`tool-${entry.id}`)})`}
              onClick={() => chooseTool(entry.id)}
            >
              {entry.label}
            </button>
          ))}
        </div>
        {isCt && (
          <div className="dv__group" role="group" aria-label="CT window presets">
            {CT_PRESETS.map((preset) => (
              <button
                key={preset.id}
                type="button"
                className="dv-btn"
                aria-pressed={activePreset?.id === preset.id}
                title={`${preset.label}: W ${preset.width} L ${preset.center} (${preset.key})`}
                onClick={() => applyWindow(voiRangeOf(preset))}
              >
                {preset.label}
              </button>
            ))}
          </div>
        )}
        <div className="dv__group" role="group" aria-label="View">
          {button('Zoom in', 'zoom-in', '+')}
          {button('Zoom out', 'zoom-out', '−')}
          {button('Invert', 'invert', 'Invert', inverted)}
          {button('Rotate 90°', 'rotate', 'Rotate')}
          {button('Flip H (horizontally)', 'flip-horizontal', 'Flip H')}
          {button('Flip V (vertically)', 'flip-vertical', 'Flip V')}
          {button('Reset the view', 'reset', 'Reset')}
        </div>
        <div className="dv__group" role="group" aria-label="More">
          {total > 1 && button(playing ? 'Stop cine' : 'Play cine', 'cine', playing ? 'Stop' : 'Play', playing)}
          {total > 1 && (
            <label className="dv__fps" htmlFor={fpsId}>
              <span>Frame rate</span>
              <select id={fpsId} value={fps} onChange={(event) => setFps(Number(event.target.value))}>
                {FPS_CHOICES.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice} fps
                  </option>
                ))}
              </select>
            </label>
          )}
          {button(showIdentifiers ? 'Hide patient identifiers' : 'Show patient identifiers', 'identifiers', 'Patient', showIdentifiers)}
          {button(fullScreen ? 'Exit full screen' : 'Full screen', 'fullscreen', fullScreen ? 'Exit full screen' : 'Full screen', fullScreen)}
          {button('Keyboard shortcuts', 'help', '?')}
        </div>
      </div>

      <div className="dv__body">
        {source.kind === 'study' && source.series.length > 1 && (
          <SeriesPanel studyUid={source.studyUid} series={source.series} current={seriesUid} onChoose={setSeriesUid} />
        )}
        <div className="dv__main">
          <div className="dv__stage">
            <div
              ref={elementRef}
              className="dv__viewport"
              data-testid="dicom-viewport"
              role="img"
              aria-label={`${title}: image ${total ? index + 1 : 0} of ${total}`}
              onContextMenu={(event) => event.preventDefault()}
            />
            <div className="dv__overlay" aria-live="polite" data-testid="viewer-overlay">
              <div className="dv__corner dv__corner--tl">
                {source.kind === 'study' && <p>{seriesLabel(head, currentSeries)}</p>}
                {head && textOf(head, TAG.modality) && <p>{textOf(head, TAG.modality)}</p>}
              </div>
              <div className="dv__corner dv__corner--tr">
                {showIdentifiers && head && (
                  <>
                    <p data-testid="patient-name">{textOf(head, TAG.patientName) || 'No name'}</p>
                    <p>{textOf(head, TAG.patientId) ? `ID ${textOf(head, TAG.patientId)}` : 'No ID'}</p>
                  </>
                )}
              </div>
              <div className="dv__corner dv__corner--bl">
                <p data-testid="overlay-image">{`Image ${total ? index + 1 : 0} / ${total}`}</p>
                {current?.instanceNumber !== null && current?.instanceNumber !== undefined && (
                  <p data-testid="overlay-instance">{`Instance ${current.instanceNumber}`}</p>
                )}
                {current && current.frames > 1 && <p>{`Frame ${current.frame} / ${current.frames}`}</p>}
                {preview && <p className="dv__warn">Shown as a preview image</p>}
              </div>
              <div className="dv__corner dv__corner--br">
                <p data-testid="overlay-window">{formatWindow(voi)}</p>
                <p data-testid="overlay-zoom">{`Zoom ${Math.round((zoom / fitZoom.current) * 100)}%`}</p>
              </div>
            </div>
            {loadingImage && !failure && <p className="dv__status">Loading the images…</p>}
            {failure && (
              <p className="dv__status dv__status--error" role="alert">
                {failure}
              </p>
            )}
          </div>
          {total > 1 && (
            <div className="dv__slider">
              <label htmlFor={sliderId}>Image</label>
              <input
                id={sliderId}
                type="range"
                min={1}
                max={total}
                value={index + 1}
                aria-valuetext={`Image ${index + 1} of ${total}`}
                onChange={(event) => go(Number(event.target.value) - 1)}
              />
            </div>
          )}
          {measurements.length > 0 && (
            <section className="dv__measurements" aria-label="Measurements">
              <h2>Measurements</h2>
              <ul>
                {measurements.map((entry) => (
                  <li key={entry.id} data-testid="measurement">
                    {entry.kind === 'length' ? 'Length' : 'Angle'}: {entry.text}
                  </li>
                ))}
              </ul>
              {stack && !stack.calibrated && measurements.some((entry) => entry.kind === 'length') && (
                <p className="dv__warn">These images carry no Pixel Spacing: lengths are in pixels (uncalibrated).</p>
              )}
            </section>
          )}
        </div>
      </div>

      {helpOpen && (
        <Modal title="Keyboard shortcuts" onClose={() => setHelpOpen(false)}>
          <dl className="dv__shortcuts">
            {SHORTCUTS.map((shortcut) => (
              <div key={shortcut.label}>
                <dt>{shortcut.keys.map(keyLabel).join(' / ')}</dt>
                <dd>{shortcut.label}</dd>
              </div>
            ))}
            <div>
              <dt>Wheel</dt>
              <dd>Next or previous image</dd>
            </div>
            <div>
              <dt>Right drag / middle drag</dt>
              <dd>Zoom / pan</dd>
            </div>
            <div>
              <dt>One finger / two fingers</dt>
              <dd>The chosen tool / pinch to zoom and pan</dd>
            </div>
          </dl>
        </Modal>
      )}
    </div>
  );
}
