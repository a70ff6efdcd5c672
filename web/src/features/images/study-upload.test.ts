import { AxiosError, AxiosHeaders, CanceledError } from 'axios';
import { describe, expect, it, vi } from 'vitest';
import { deferred } from '@/test/deferred';
import type { StoreAnswer, StoreOptions } from './dicomweb';
import { uploadStudies, type InstanceToSend, type StudyToSend } from './study-upload';

function item(path: string, size = 100): InstanceToSend {
  return { path, size, read: async () => new Blob([new Uint8Array(size)]) };
}

function study(paths: string[], caption = 'Chest CT'): StudyToSend {
  return { studyInstanceUid: '1.2.3', patientId: 'patient-1', caption, instances: paths.map((path) => item(path)) };
}

function httpError(status: number, data: unknown, headers: Record<string, string> = {}): AxiosError {
  const config = { headers: new AxiosHeaders() };
  return new AxiosError('failed', 'ERR_BAD_RESPONSE', config, null, { status, statusText: '', data, headers, config });
}

const stored: StoreAnswer = { imageId: 'img-1', warning: null, body: {}, status: 200 };

describe('uploadStudies', () => {
  it('sends each instance on its own, three at a time, reports the bytes, then sets the caption', async () => {
    const answers = new Map<string, ReturnType<typeof deferred<StoreAnswer>>>();
    const options: StoreOptions[] = [];
    const send = vi.fn((_file: Blob, _patientId: string, opts: StoreOptions) => {
      options.push(opts);
      const answer = deferred<StoreAnswer>();
      answers.set(String(options.length), answer);
      return answer.promise;
    });
    const setCaption = vi.fn(async () => ({}));
    const progress: [number, number][] = [];
    const running = uploadStudies([study(['a', 'b', 'c', 'd'])], {
      send,
      setCaption,
      signal: new AbortController().signal,
      onProgress: (done, total) => progress.push([done, total]),
    });
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(3));
    expect(send.mock.calls[0][1]).toBe('patient-1');
    options[0].onProgress?.(50);
    expect(progress.at(-1)).toEqual([50, 400]);
    answers.get('1')?.resolve(stored);
    // One settled, the fourth starts: never more than three in flight.
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(4));
    expect(progress.at(-1)).toEqual([100, 400]);
    for (const n of ['2', '3', '4']) answers.get(n)?.resolve(stored);
    const outcome = await running;
    expect(progress.at(-1)).toEqual([400, 400]);
    expect(outcome).toEqual({
      cancelled: false,
      studies: [
        { studyInstanceUid: '1.2.3', caption: 'Chest CT', stored: 4, failed: [], notSent: 0, imageId: 'img-1', captionError: null },
      ],
    });
    expect(setCaption).toHaveBeenCalledWith('img-1', 'Chest CT');
  });

  it('tries a failed instance twice more, then reports it by name with the server message', async () => {
    const send = vi.fn(async (file: Blob) => {
      if (file.size === 7) throw httpError(503, { message: 'The store is busy.' });
      return stored;
    });
    const outcome = await uploadStudies(
      [{ ...study([]), instances: [item('S1/IM1'), item('S1/IM2', 7)] }],
      { send, setCaption: async () => ({}), signal: new AbortController().signal, retryDelay: () => 0 },
    );
    expect(send).toHaveBeenCalledTimes(4);
    expect(outcome.studies[0]).toMatchObject({ stored: 1, failed: [{ path: 'S1/IM2', message: 'The store is busy.' }] });
  });

  it('stored on a retry counts as stored', async () => {
    const send = vi.fn().mockRejectedValueOnce(httpError(500, {})).mockResolvedValueOnce(stored);
    const outcome = await uploadStudies([study(['IM1'])], {
      send,
      setCaption: async () => ({}),
      signal: new AbortController().signal,
      retryDelay: () => 0,
    });
    expect(outcome.studies[0]).toMatchObject({ stored: 1, failed: [] });
  });

  it('does not repeat an answer that would not change: not DICOM, over the limit', async () => {
    const send = vi
      .fn()
      .mockRejectedValueOnce(httpError(415, { message: 'This is not a DICOM file.' }))
      .mockRejectedValueOnce(httpError(413, { message: 'The instance is over the 50 MB limit.' }));
    const setCaption = vi.fn();
    const outcome = await uploadStudies([study(['a', 'b'])], {
      send,
      setCaption,
      signal: new AbortController().signal,
      concurrency: 1,
    });
    expect(send).toHaveBeenCalledTimes(2);
    expect(outcome.studies[0].failed).toEqual([
      { path: 'a', message: 'This is not a DICOM file.' },
      { path: 'b', message: 'The instance is over the 50 MB limit.' },
    ]);
    // Nothing stored: no caption to set.
    expect(setCaption).not.toHaveBeenCalled();
  });

  it('reports a 202 whose answer lists the instance as failed, with the DICOM failure reason', async () => {
    const refused = { imageId: 'img-1', warning: null, status: 202, body: { '00081198': { vr: 'SQ', Value: [{ '00081197': { vr: 'US', Value: [42752] } }] } } };
    const outcome = await uploadStudies([study(['a'])], {
      send: async () => refused,
      setCaption: async () => ({}),
      signal: new AbortController().signal,
      retryDelay: () => 0,
    });
    expect(outcome.studies[0].failed).toEqual([{ path: 'a', message: 'Not stored (failure reason 0xA700).' }]);
  });

  it('reports a 409 that stored nothing with the reason of its Warning header, without trying again', async () => {
    const failed = { '00081198': { vr: 'SQ', Value: [{ '00081197': { vr: 'US', Value: [42752] } }] } };
    const send = vi.fn(async () => {
      throw httpError(409, failed, { warning: '299 medishare "The DICOM instance exceeds the 50 MB limit."' });
    });
    const outcome = await uploadStudies([study(['big.dcm'])], {
      send,
      setCaption: async () => ({}),
      signal: new AbortController().signal,
      retryDelay: () => 0,
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(outcome.studies[0].failed).toEqual([{ path: 'big.dcm', message: 'The DICOM instance exceeds the 50 MB limit.' }]);
  });

  it('stops at once when cancelled: the requests in flight end, nothing more starts, the caption is left', async () => {
    const controller = new AbortController();
    const send = vi.fn(
      (_file: Blob, _patientId: string, { signal }: StoreOptions) =>
        new Promise<StoreAnswer>((resolve, reject) => {
          if (send.mock.calls.length === 1) resolve(stored);
          signal?.addEventListener('abort', () => reject(new CanceledError()));
        }),
    );
    const setCaption = vi.fn();
    const running = uploadStudies([study(['a', 'b', 'c', 'd', 'e']), study(['f'], 'Second')], {
      send,
      setCaption,
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(4));
    controller.abort();
    const outcome = await running;
    expect(send).toHaveBeenCalledTimes(4);
    expect(outcome.cancelled).toBe(true);
    expect(outcome.studies.map(({ stored: s, failed, notSent }) => [s, failed.length, notSent])).toEqual([
      [1, 0, 4],
      [0, 0, 1],
    ]);
    expect(setCaption).not.toHaveBeenCalled();
  });

  it('keeps the study stored when its caption cannot be set, and says so', async () => {
    const outcome = await uploadStudies([study(['a'])], {
      send: async () => stored,
      setCaption: () => Promise.reject(httpError(422, { message: 'The caption is too long.' })),
      signal: new AbortController().signal,
    });
    expect(outcome.studies[0]).toMatchObject({ stored: 1, captionError: 'The caption is too long.' });
  });
});
