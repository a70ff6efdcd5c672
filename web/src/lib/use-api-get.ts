import { isCancel } from 'axios';
import { useEffect, useState } from 'react';
import { api } from './api-client';

type Params = Record<string, string | number | undefined>;

interface Result<T> {
  key: string;
  data?: T;
  error?: unknown;
}

export interface ApiGetState<T> {
  /** The last body received; while a new request runs it is the previous one. */
  data: T | undefined;
  /** The failure of the current request, if it failed. */
  error: unknown;
  loading: boolean;
}

/**
 * GETs `url` (with `params`) whenever one of them, or `version`, changes.
 * A pass of `null` as url skips the call. Answers to superseded requests are
 * dropped, so a slow first page never overwrites a later one.
 */
export function useApiGet<T>(url: string | null, params?: Params, version = 0): ApiGetState<T> {
  const key = JSON.stringify([url, params ?? null, version]);
  const [result, setResult] = useState<Result<T> | null>(null);

  useEffect(() => {
    const [target, query] = JSON.parse(key) as [string | null, Params | null];
    if (target === null) return;
    const controller = new AbortController();
    let current = true;
    api.get<T>(target, { params: query ?? undefined, signal: controller.signal }).then(
      (response) => {
        if (current) setResult({ key, data: response.data });
      },
      (error: unknown) => {
        if (current && !isCancel(error)) setResult((previous) => ({ key, data: previous?.data, error }));
      },
    );
    return () => {
      current = false;
      controller.abort();
    };
  }, [key]);

  const settled = result?.key === key;
  return {
    data: result?.data,
    error: settled ? result.error : undefined,
    loading: url !== null && !settled,
  };
}
