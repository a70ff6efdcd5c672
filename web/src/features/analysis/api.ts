import { baseApi } from '@/lib/api';
import { notifySuccess } from '@/lib/notify';
import type { ApiResponse } from '@/types/api';

/** An analysis (api.md "AI analysis"). */
export interface Analysis {
  description: string;
  differentialDiagnosis: { condition: string; confidence: number }[];
  treatment: string[];
  followUp: string[];
  warnings: string[];
  /** From 0 to 1; null when the analyser does not diagnose (the built-in one never does). */
  confidence: number | null;
  imageId: string;
  timestamp: string;
  model: string;
  provider: string;
  measurements: { key: string; label: string; value: number; unit: string }[];
  /** An external model's analysis: what was sent, and where. */
  provenance?: { promptVersion: string; schemaVersion: string; imageSha256: string; deIdentification: string; sentTo: string };
}

/** An analysis answer: the analysis, and the server's message for the toast. */
export type AnalysisAnswer = ApiResponse<Analysis>;

const analysisTag = (imageId: string) => ({ type: 'Analysis', id: imageId }) as const;

export const analysisApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The image's current analysis; the server runs one when there is none. */
    getAnalysis: build.query<AnalysisAnswer, string>({
      query: (imageId) => ({ url: `/analyze/${encodeURIComponent(imageId)}` }),
      providesTags: (_result, _error, imageId) => [analysisTag(imageId)],
      // product.md §7: a success toast from the answer's message. Every
      // answer that reaches this cache entry says it once: the GET's, and Run
      // again's, which runAnalysis writes here. The id keeps one analysis
      // from stacking the same toast when the page is opened again.
      async onQueryStarted(imageId, { queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          if (data.message) notifySuccess(data.message, { toastId: `analysis:${imageId}:${data.data.timestamp}` });
        } catch {
          // The page shows the failure.
        }
      },
    }),

    /** Runs the analysis again; the answer replaces the cached one. */
    runAnalysis: build.mutation<AnalysisAnswer, string>({
      query: (imageId) => ({ url: `/analyze/${encodeURIComponent(imageId)}`, method: 'POST' }),
      async onQueryStarted(imageId, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(analysisApi.util.upsertQueryData('getAnalysis', imageId, data));
        } catch {
          // The page reports the failure.
        }
      },
    }),
  }),
});

export const { useGetAnalysisQuery, useRunAnalysisMutation } = analysisApi;

/** product.md /ai-analysis: entries equal to `**` are dropped. */
export function cleanEntries(list: string[]): string[] {
  return list.map((entry) => entry.trim()).filter((entry) => entry !== '' && entry !== '**');
}

/** product.md /ai-analysis: `**` is removed from the description. */
export function cleanDescription(text: string): string {
  return text.replaceAll('**', '').trim();
}

/** A confidence from 0 to 1 in percent, as the page shows it. */
export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}
