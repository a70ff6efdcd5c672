import { lazy, Suspense } from 'react';
import { Spinner } from '@/components/Spinner';

// Cornerstone3D, its DICOM loader and its tools weigh far more than the
// whole app: they load with this page only, never in the first load.
const ViewerPage = lazy(() => import('@/features/images/viewer/ViewerPage'));

/** /viewer/:id: the DICOM viewer, loaded when first opened. */
export function ViewerRoute() {
  return (
    <Suspense fallback={<Spinner label="Opening the viewer…" />}>
      <ViewerPage />
    </Suspense>
  );
}
