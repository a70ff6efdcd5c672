import { Spinner } from '@/components/Spinner';
import { useChunk } from '@/lib/use-chunk';

// Cornerstone3D, its DICOM loader and its tools weigh far more than the
// whole app: they load with this page only, never in the first load.
const importViewerPage = () => import('@/features/images/viewer/ViewerPage');
let viewerPage: ReturnType<typeof importViewerPage> | null = null;
function loadViewerPage() {
  viewerPage ??= importViewerPage();
  return viewerPage;
}

/** /viewer/:id: the DICOM viewer, loaded when first opened. */
export function ViewerRoute() {
  const { chunk, failed } = useChunk(loadViewerPage);
  if (failed) return <p className="form-error">The viewer could not be loaded. Reload the page to try again.</p>;
  if (!chunk) return <Spinner label="Opening the viewer…" />;
  const ViewerPage = chunk.default;
  return <ViewerPage />;
}
