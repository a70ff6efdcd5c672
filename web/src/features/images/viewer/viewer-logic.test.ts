import { describe, expect, it } from 'vitest';
import { inViewer } from '../media';
import { cacheBytes, isSoftwareRenderer, prefetchCount } from './cache-size';
import { formatAngle, formatLength, measurementsOf } from './measurements';
import { CT_PRESETS, formatWindow, presetOf, voiRangeOf, windowOf } from './presets';
import { framesOf, orderInstances, type DicomJson } from './series';
import { actionForKey, keyLabel, SHORTCUTS } from './shortcuts';
import { frameImageId, parseFrameImageId, renderedPath, seriesMetadataPath, viewerHref, webImageId } from './urls';

const MB = 1024 * 1024;

describe('window presets', () => {
  it('has the usual CT windows', () => {
    const byId = Object.fromEntries(CT_PRESETS.map((preset) => [preset.id, [preset.width, preset.center]]));
    expect(byId).toEqual({
      brain: [80, 40],
      lung: [1500, -600],
      bone: [2000, 300],
      abdomen: [400, 40],
      'soft-tissue': [350, 50],
    });
  });

  it('turns a window into a VOI range and back', () => {
    expect(voiRangeOf({ width: 1500, center: -600 })).toEqual({ lower: -1350, upper: 150 });
    expect(windowOf({ lower: -1350, upper: 150 })).toEqual({ width: 1500, center: -600 });
    expect(formatWindow({ lower: 0, upper: 80 })).toBe('W 80 L 40');
    expect(formatWindow(null)).toBe('W – L –');
  });

  it('recognises the preset a range is', () => {
    expect(presetOf(voiRangeOf({ width: 400, center: 40 }))?.id).toBe('abdomen');
    expect(presetOf({ lower: 0, upper: 1 })).toBeNull();
  });
});

describe('cache size', () => {
  it('keeps 256 MB on a desktop', () => {
    expect(cacheBytes({ screenWidth: 1440 })).toBe(256 * MB);
    expect(cacheBytes({ deviceMemory: 8, screenWidth: 1440 })).toBe(256 * MB);
  });

  it('keeps less on a phone or a device with little memory', () => {
    expect(cacheBytes({ screenWidth: 375 })).toBe(128 * MB);
    expect(cacheBytes({ deviceMemory: 1, screenWidth: 1440 })).toBe(128 * MB);
    expect(cacheBytes({ deviceMemory: 0.5, screenWidth: 375 })).toBe(64 * MB);
  });

  it('tells a software WebGL from a GPU', () => {
    expect(isSoftwareRenderer('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)')).toBe(true);
    expect(isSoftwareRenderer('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftwareRenderer('ANGLE (Intel, Mesa Intel(R) UHD Graphics 620)')).toBe(false);
    expect(isSoftwareRenderer(null)).toBe(false);
  });

  it('prefetches what fits in three quarters of the cache, at most the stack', () => {
    const slice = 512 * 512 * 2;
    expect(prefetchCount(256 * MB, slice, 1000)).toBe(384);
    expect(prefetchCount(256 * MB, slice, 300)).toBe(300);
    expect(prefetchCount(64 * MB, slice, 1000)).toBe(96);
    expect(prefetchCount(64 * MB, 0, 1000)).toBe(0);
  });
});

describe('shortcuts', () => {
  it('maps keys to actions', () => {
    expect(actionForKey({ key: 'ArrowDown' })).toBe('next');
    expect(actionForKey({ key: 'ArrowUp' })).toBe('previous');
    expect(actionForKey({ key: 'W' })).toBe('tool-window');
    expect(actionForKey({ key: 'l' })).toBe('tool-length');
    expect(actionForKey({ key: ' ' })).toBe('cine');
    expect(actionForKey({ key: '2' })).toBe('preset:lung');
    expect(actionForKey({ key: '?' })).toBe('help');
  });

  it('leaves modified keys and unknown keys to the browser', () => {
    expect(actionForKey({ key: 'r', ctrlKey: true })).toBeNull();
    expect(actionForKey({ key: 'q' })).toBeNull();
  });

  it('gives each key one action', () => {
    const keys = SHORTCUTS.flatMap((shortcut) => shortcut.keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keyLabel('ArrowDown')).toBe('↓');
    expect(keyLabel(' ')).toBe('Space');
    expect(keyLabel('w')).toBe('W');
  });
});

describe('urls', () => {
  it('builds WADO-RS paths and image ids', () => {
    expect(seriesMetadataPath('1.2', '3.4')).toBe('/dicomweb/studies/1.2/series/3.4/metadata');
    expect(renderedPath('1.2', '3.4', '5.6')).toBe('/dicomweb/studies/1.2/series/3.4/instances/5.6/rendered');
    const id = frameImageId('1.2', '3.4', '5.6', 7, 'http://127.0.0.1:8080');
    expect(id).toBe('wadors:http://127.0.0.1:8080/dicomweb/studies/1.2/series/3.4/instances/5.6/frames/7');
    expect(parseFrameImageId(id)).toEqual({ study: '1.2', series: '3.4', sop: '5.6', frame: 7 });
    expect(parseFrameImageId('web:/x.png')).toBeNull();
    expect(viewerHref('abc')).toBe('/viewer/abc');
    expect(viewerHref('abc', '1.2')).toBe('/viewer/abc?series=1.2');
    expect(webImageId('/api/contents/x?sig=1')).toBe('web:/api/contents/x?sig=1');
  });
});

describe('series', () => {
  const instance = (sop: string, number: number | undefined, frames?: number): DicomJson => ({
    '00080018': { vr: 'UI', Value: [sop] },
    ...(number === undefined ? {} : { '00200013': { vr: 'IS', Value: [number] } }),
    ...(frames ? { '00280008': { vr: 'IS', Value: [String(frames)] } } : {}),
  });

  it('orders instances by number, those without one last', () => {
    const ordered = orderInstances([instance('c', undefined), instance('b', 2), instance('a', 10)]);
    expect(ordered.map((data) => data['00080018']?.Value?.[0])).toEqual(['b', 'a', 'c']);
  });

  it('gives every frame of a multi-frame instance an image id', () => {
    const frames = framesOf('s', 'e', [instance('two', 2), instance('one', 1, 3)], 'http://h');
    expect(frames.map((frame) => `${frame.sop}:${frame.frame}/${frame.frames}`)).toEqual(['one:1/3', 'one:2/3', 'one:3/3', 'two:1/1']);
    expect(frames[1].imageId).toBe('wadors:http://h/dicomweb/studies/s/series/e/instances/one/frames/2');
  });
});

describe('measurements', () => {
  it('writes lengths in mm, or pixels marked uncalibrated', () => {
    expect(formatLength(12.345, 'mm')).toBe('12.3 mm');
    expect(formatLength(45, 'px')).toBe('45.0 px (uncalibrated)');
    expect(formatAngle(37.46)).toBe('37.5°');
  });

  it('lists length and angle annotations', () => {
    const list = measurementsOf([
      { annotationUID: '1', metadata: { toolName: 'Length' }, data: { cachedStats: { 'imageId:x': { length: 10, unit: 'mm' } } } },
      { annotationUID: '2', metadata: { toolName: 'Angle' }, data: { cachedStats: { 'imageId:x': { angle: 90 } } } },
      { annotationUID: '3', metadata: { toolName: 'Probe' }, data: {} },
    ]);
    expect(list).toEqual([
      { id: '1', kind: 'length', text: '10.0 mm' },
      { id: '2', kind: 'angle', text: '90.0°' },
    ]);
  });
});

describe('what opens in the viewer', () => {
  const base = { image_url: '/c?sig=1', study: null, contentType: 'image/jpeg' };
  it('opens studies, single DICOM instances, JPEG and PNG', () => {
    expect(inViewer(base)).toBe(true);
    expect(inViewer({ ...base, contentType: 'image/png' })).toBe(true);
    expect(
      inViewer({
        ...base,
        contentType: 'application/dicom',
        study: { studyInstanceUid: '1.2', description: '', date: '', modalities: ['CT'], series: 1, instances: 1, bytes: 1 },
      }),
    ).toBe(true);
  });

  it('leaves PDFs to their own viewer, and shares not verified yet closed', () => {
    expect(inViewer({ ...base, contentType: 'application/pdf' })).toBe(false);
    expect(inViewer({ ...base, image_url: null })).toBe(false);
  });
});
