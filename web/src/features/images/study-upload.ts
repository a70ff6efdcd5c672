import { isAxiosError, isCancel } from 'axios';
import { errorBody, errorStatus, getErrorMessage } from '@/lib/api-client';
import { warningOf, type StoreAnswer, type StoreOptions } from './dicomweb';

/** One instance to send: its name for the report, its size for the progress bar. */
export interface InstanceToSend {
  path: string;
  size: number;
  read: () => Promise<Blob>;
}

export interface StudyToSend {
  studyInstanceUid: string;
  patientId: string;
  caption: string;
  instances: InstanceToSend[];
}

export interface FailedInstance {
  path: string;
  message: string;
}

export interface StudyOutcome {
  studyInstanceUid: string;
  caption: string;
  stored: number;
  failed: FailedInstance[];
  /** Not sent because the upload was cancelled first. */
  notSent: number;
  imageId: string | null;
  /** The caption could not be set: the study keeps the server's (its description). */
  captionError: string | null;
}

export interface UploadOutcome {
  cancelled: boolean;
  studies: StudyOutcome[];
}

export interface UploadDeps {
  send: (file: Blob, patientId: string, options: StoreOptions) => Promise<StoreAnswer>;
  setCaption: (imageId: string, caption: string) => Promise<unknown>;
  signal: AbortSignal;
  /** Bytes done (sent, or given up on) of all the instances. */
  onProgress?: (done: number, total: number) => void;
  /** Requests at a time. */
  concurrency?: number;
  /** Tries per instance: the first and the retries. */
  attempts?: number;
  /** The pause before retry n (1, 2…); a server under load gets a moment. */
  retryDelay?: (retry: number) => number;
}

/** Answers that another try would get again: a refused file, a refused patient, a limit. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 413, 415, 422]);

const FAILED_SOP_SEQUENCE = '00081198';
const FAILURE_REASON = '00081197';

class StoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreRefused';
  }
}

/** Whether a STOW-RS answer failed the instance because storage failed (reason 0110). */
function storageFailed(error: unknown): boolean {
  const body = isAxiosError(error) ? (error.response?.data as Record<string, { Value?: Record<string, { Value?: unknown[] }>[] }> | undefined) : undefined;
  return body?.[FAILED_SOP_SEQUENCE]?.Value?.[0]?.[FAILURE_REASON]?.Value?.[0] === 0x0110;
}

/** The failure reason of a STOW-RS answer listing the instance as failed (DICOM JSON), or null. */
function failureOf(body: unknown): string | null {
  const sequence = (body as Record<string, { Value?: Record<string, { Value?: unknown[] }>[] }> | null)?.[FAILED_SOP_SEQUENCE];
  if (!sequence?.Value?.length) return null;
  const reason = sequence.Value[0]?.[FAILURE_REASON]?.Value?.[0];
  return typeof reason === 'number' ? `Not stored (failure reason 0x${reason.toString(16).toUpperCase()}).` : 'Not stored.';
}

/** The reason in words of a STOW-RS answer that stored nothing (409), from its Warning header. */
function warningOfError(error: unknown): string | null {
  return isAxiosError(error) ? warningOf(error.response?.headers?.warning) : null;
}

function messageOf(error: unknown): string {
  if (error instanceof StoreRefused) return error.message;
  const status = errorStatus(error);
  if (status === undefined) return 'The server did not answer. Please check your connection.';
  const warning = warningOfError(error);
  if (warning) return warning;
  const body = errorBody(error);
  if (body?.message || body?.error) return getErrorMessage(error);
  return failureOf(body) ?? `The server refused it (${status}).`;
}

/**
 * Rejects once `signal` aborts: a cancel ends the wait for an answer at once,
 * whether or not the transport has noticed yet.
 */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(new Error('cancelled'));
    else signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
  });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Sends the studies one after the other, each instance in its own request,
 * `concurrency` at a time. A failed instance is tried again (unless the
 * answer would not change), then reported with the server's message; after
 * each study the caption the provider typed is set. Aborting `signal` stops
 * at once: requests in flight are cancelled, nothing more starts.
 */
export async function uploadStudies(studies: StudyToSend[], deps: UploadDeps): Promise<UploadOutcome> {
  const { send, setCaption, signal, onProgress, concurrency = 3, attempts = 3, retryDelay = (retry) => retry * 1000 } = deps;
  const total = studies.reduce((sum, study) => sum + study.instances.reduce((part, item) => part + item.size, 0), 0);
  let finished = 0;
  const inFlight = new Map<InstanceToSend, number>();
  const report = () => {
    let sending = 0;
    for (const loaded of inFlight.values()) sending += loaded;
    onProgress?.(finished + sending, total);
  };

  const aborted = whenAborted(signal);
  // Nobody else waits on it when nothing is cancelled.
  aborted.catch(() => {});
  const outcomes: StudyOutcome[] = [];
  for (const study of studies) {
    const outcome: StudyOutcome = {
      studyInstanceUid: study.studyInstanceUid,
      caption: study.caption,
      stored: 0,
      failed: [],
      notSent: 0,
      imageId: null,
      captionError: null,
    };
    outcomes.push(outcome);
    if (signal.aborted) {
      outcome.notSent = study.instances.length;
      continue;
    }

    const sendOne = async (item: InstanceToSend) => {
      for (let attempt = 1; ; attempt += 1) {
        inFlight.set(item, 0);
        report();
        try {
          const body = await Promise.race([item.read(), aborted]);
          const answer = await Promise.race([
            send(body, study.patientId, {
              signal,
              onProgress: (loaded) => {
                inFlight.set(item, loaded);
                report();
              },
            }),
            aborted,
          ]);
          const refused = answer.status === 202 ? (answer.warning ?? failureOf(answer.body)) : null;
          if (refused) throw new StoreRefused(refused);
          outcome.stored += 1;
          outcome.imageId = answer.imageId ?? outcome.imageId;
          return;
        } catch (error) {
          if (signal.aborted || isCancel(error)) {
            outcome.notSent += 1;
            return;
          }
          const status = errorStatus(error);
          // A 409 stored nothing: final, unless storage itself failed (reason 0110), which another try may pass.
          const final = status !== undefined && (FINAL_STATUSES.has(status) || (status === 409 && !storageFailed(error)));
          if (attempt >= attempts || final) {
            outcome.failed.push({ path: item.path, message: messageOf(error) });
            return;
          }
          inFlight.delete(item);
          report();
          await wait(retryDelay(attempt), signal);
          if (signal.aborted) {
            outcome.notSent += 1;
            return;
          }
        }
      }
    };

    const queue = study.instances.values();
    const worker = async () => {
      for (const item of queue) {
        if (signal.aborted) {
          outcome.notSent += 1;
          continue;
        }
        await sendOne(item);
        // Settled for good (stored, failed, or not sent): its bytes count as done.
        inFlight.delete(item);
        finished += item.size;
        report();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, study.instances.length) }, worker));

    if (!signal.aborted && outcome.stored > 0 && outcome.imageId) {
      try {
        await setCaption(outcome.imageId, study.caption);
      } catch (error) {
        outcome.captionError = getErrorMessage(error, 'The caption could not be set.');
      }
    }
  }
  return { cancelled: signal.aborted, studies: outcomes };
}
