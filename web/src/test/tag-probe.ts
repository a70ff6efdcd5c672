import type { AppStore } from '@/app/store';
import { baseApi, type TAG_TYPES } from '@/lib/api';

type TagType = (typeof TAG_TYPES)[number];
type Tag = TagType | { type: TagType; id: string };

const runs: Record<number, number> = {};
let probes = 0;

// A stand-in query that provides one tag and counts its runs, without HTTP.
const probeApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    tagProbe: build.query<number, { tag: Tag; probe: number }>({
      queryFn: ({ probe }) => {
        runs[probe] = (runs[probe] ?? 0) + 1;
        return { data: runs[probe] };
      },
      providesTags: (_result, _error, { tag }) => [tag],
    }),
  }),
});

/**
 * Subscribes a query to `tag` in `store`. The returned function says how
 * many times it has run: 1, and one more each time the tag is invalidated.
 */
export async function watchTag(store: AppStore, tag: Tag): Promise<() => number> {
  const probe = ++probes;
  await store.dispatch(probeApi.endpoints.tagProbe.initiate({ tag, probe }));
  return () => runs[probe] ?? 0;
}
