import type { AxiosProgressEvent } from 'axios';
import { baseApi, imageTag, SHARED_IMAGES, UPLOADED_IMAGES } from '@/lib/api';
import type { ApiResponse, PagedResponse } from '@/types/api';
import type { MedicalImage, StudySeries, UploadLimits } from '@/types/images';

/** product.md §9: at most 10 MB per file. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** product.md §9: image lists page by 10. */
export const IMAGE_PAGE_SIZE = 10;

/**
 * The image lists, by the end of their path: the caller's uploads, every
 * image (admins), and the images shared with the caller.
 */
export type ImageList = 'my-images' | 'images' | 'shared-images';

export interface UploadFields {
  caption: string;
  patientId: string;
  file: File;
  /** Called with 0..100 as the request body goes out. */
  onProgress?: (percent: number) => void;
}

/** What PATCH /api/upload/image/{id} changes: the caption, or the patient of an unassigned study. */
export interface ImageChanges {
  id: string;
  caption?: string;
  patientId?: string;
}

/** The share of the body sent, 0..100, from an axios progress event. */
export function progressPercent(event: Pick<AxiosProgressEvent, 'loaded' | 'total' | 'progress'>): number {
  const ratio = event.progress ?? (event.total ? event.loaded / event.total : 0);
  return Math.max(0, Math.min(100, Math.round(ratio * 100)));
}

const imagePath = (id: string) => `/upload/image/${encodeURIComponent(id)}`;

export const imagesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** One page of a list; each image is tagged too, so a change to one refreshes the pages showing it. */
    listImages: build.query<PagedResponse<MedicalImage>, { list: ImageList; page: number }>({
      query: ({ list, page }) => ({ url: `/upload/${list}`, params: { page, limit: IMAGE_PAGE_SIZE } }),
      providesTags: (result, _error, { list }) => [
        list === 'shared-images' ? SHARED_IMAGES : UPLOADED_IMAGES,
        ...(result?.data ?? []).map((image) => imageTag(image.id)),
      ],
    }),

    /** GET /api/upload/unassigned: the caller's studies waiting for a patient (not in their list). */
    listUnassigned: build.query<MedicalImage[], void>({
      query: () => ({ url: '/upload/unassigned' }),
      transformResponse: (body: ApiResponse<MedicalImage[]>) => body.data,
      providesTags: (result) => [UPLOADED_IMAGES, ...(result ?? []).map((image) => imageTag(image.id))],
    }),

    /** GET /api/upload/image/{id}: one image with freshly signed URLs. */
    getImage: build.query<MedicalImage, string>({
      query: (id) => ({ url: imagePath(id) }),
      transformResponse: (body: ApiResponse<MedicalImage>) => body.data,
      providesTags: (_result, _error, id) => [imageTag(id)],
    }),

    /**
     * POST /api/upload/image. The text fields go first: the server streams
     * the file part and checks caption and patient before it reads the file.
     * Abort the returned promise to cancel.
     */
    uploadImage: build.mutation<ApiResponse<MedicalImage>, UploadFields>({
      query: ({ caption, patientId, file, onProgress }) => {
        const form = new FormData();
        form.append('caption', caption);
        form.append('patientId', patientId);
        form.append('file', file, file.name);
        return {
          url: '/upload/image',
          method: 'POST',
          body: form,
          onUploadProgress: onProgress ? (event) => onProgress(progressPercent(event)) : undefined,
        };
      },
      invalidatesTags: (_result, error) => (error ? [] : [UPLOADED_IMAGES, 'DashboardStats']),
    }),

    /** GET /api/upload/limits: the sizes an upload, a study's instance and a whole study may have. */
    getUploadLimits: build.query<UploadLimits, void>({
      query: () => ({ url: '/upload/limits' }),
      transformResponse: (body: ApiResponse<UploadLimits>) => body.data,
    }),

    /** GET /api/upload/image/{id}/series: the series of a study. */
    listStudySeries: build.query<StudySeries[], string>({
      query: (id) => ({ url: `${imagePath(id)}/series` }),
      transformResponse: (body: ApiResponse<StudySeries[]>) => body.data,
      providesTags: (_result, _error, id) => [imageTag(id)],
    }),

    /**
     * PATCH /api/upload/image/{id}: a study's caption after its upload, or the
     * patient of an unassigned study, which then joins the ordinary list.
     */
    updateImage: build.mutation<ApiResponse<MedicalImage>, ImageChanges>({
      query: ({ id, ...changes }) => ({ url: imagePath(id), method: 'PATCH', body: changes }),
      invalidatesTags: (_result, error, { id }) => (error ? [] : [imageTag(id), UPLOADED_IMAGES, 'DashboardStats']),
    }),

    /** DELETE /api/upload/image/{id} (uploader or admin): gone from every list, pages shift. */
    deleteImage: build.mutation<ApiResponse<unknown>, string>({
      query: (id) => ({ url: imagePath(id), method: 'DELETE' }),
      invalidatesTags: (_result, error, id) =>
        error ? [] : [imageTag(id), UPLOADED_IMAGES, SHARED_IMAGES, 'DashboardStats'],
    }),
  }),
});

export const {
  useListImagesQuery,
  useListUnassignedQuery,
  useGetImageQuery,
  useLazyGetImageQuery,
  useUploadImageMutation,
  useDeleteImageMutation,
  useGetUploadLimitsQuery,
  useListStudySeriesQuery,
  useUpdateImageMutation,
} = imagesApi;
