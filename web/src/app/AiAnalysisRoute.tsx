import { Link } from 'react-router';
import { NotAllowed } from '@/components/NotAllowed';
import { Spinner } from '@/components/Spinner';
import { AiAnalysisPage } from '@/features/analysis/pages/AiAnalysisPage';
import { useGetImageQuery, useListImagesQuery, type ImageList } from '@/features/images/api';
import { SignedImage } from '@/features/images/components/SignedImage';
import { captionOf } from '@/features/images/media';
import { can, homeRouteFor } from '@/lib/access';
import { selectUser } from '@/lib/session';
import type { MedicalImage } from '@/types/images';
import { useAppSelector } from './hooks';

/** Pictures the caller may open: what an analysis can look at. */
const analysable = (image: MedicalImage) => image.contentType !== 'application/pdf' && image.image_url !== null;

/** The image beside its analysis: its rendering. */
function AnalysedImage({ imageId }: { imageId: string }) {
  const { data: image } = useGetImageQuery(imageId);
  if (!image?.preview_url) return null;
  return (
    <SignedImage
      imageId={image.id}
      src={image.preview_url}
      pick={(fresh) => fresh.preview_url}
      alt={captionOf(image)}
      fallback={<p>Preview not available.</p>}
    />
  );
}

/** One list of images the caller may analyse, as links. */
function AnalysableList({ list, title }: { list: ImageList; title: string }) {
  const { data, isFetching } = useListImagesQuery({ list, page: 1 });
  const images = (data?.data ?? []).filter(analysable);
  return (
    <section className="analysis-picker" aria-label={title}>
      <h3>{title}</h3>
      {isFetching && !data && <Spinner label={`Loading ${title.toLowerCase()}…`} />}
      {data && images.length === 0 && <p>No images to analyse.</p>}
      <ul>
        {images.map((image) => (
          <li key={image.id}>
            <Link to={`/ai-analysis/${image.id}`}>{captionOf(image)}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * /ai-analysis/:id?: the analysis feature's page with the images feature's
 * picture beside it, and without an id the images the caller may analyse
 * (the newest of each list; the full lists are on /view-images).
 */
export function AiAnalysisRoute() {
  const user = useAppSelector(selectUser);
  if (!can(user, 'analysis:run')) {
    // The server refuses them too (analysis:run); say so before any call.
    return <NotAllowed backTo={homeRouteFor(user)} reason="AI analysis is for health providers and administrators." />;
  }
  const picker =
    can(user, 'images:read-all') ? (
      <AnalysableList list="images" title="Every image" />
    ) : (
      <>
        <AnalysableList list="my-images" title="Your uploads" />
        <AnalysableList list="shared-images" title="Shared with you" />
      </>
    );
  return <AiAnalysisPage image={(id) => <AnalysedImage imageId={id} />} picker={picker} />;
}
