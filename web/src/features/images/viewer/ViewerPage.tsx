import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useMemo, type ComponentProps } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { NotAllowed } from '@/components/NotAllowed';
import { Spinner } from '@/components/Spinner';
import { errorStatus, getErrorMessage } from '@/lib/api-client';
import { useChunk } from '@/lib/use-chunk';
import type { MedicalImage, StudySeries } from '@/types/images';
import { useGetImageQuery, useListStudySeriesQuery } from '../api';
import { captionOf } from '../media';
import { askForSeries, forgetSeries } from './series';
import type { Workspace as WorkspaceComponent, ViewerSource } from './Workspace';
import './viewer.css';

// Cornerstone's chunk takes a few hundred milliseconds of the main thread to
// evaluate: this page stays light and asks for the image, its series and the
// chosen series' metadata first; the chunk is fetched right after the first
// render, and the engine (workers, codecs, tools) starts as soon as it is in.
// The workspace waits for the same start and shows its failure.
const importWorkspace = () =>
  Promise.all([import('./Workspace'), import('./engine')]).then(([workspace, engine]) => {
    engine.startEngine().catch(() => undefined);
    return workspace;
  });
let workspaceChunk: ReturnType<typeof importWorkspace> | null = null;
function loadWorkspace() {
  workspaceChunk ??= importWorkspace();
  return workspaceChunk;
}

/** The workspace once its chunk is in (see useChunk: no Suspense, so no held-back reveal). */
function LazyWorkspace(props: ComponentProps<typeof WorkspaceComponent>) {
  const { chunk, failed } = useChunk(loadWorkspace);
  if (failed) return <p className="form-error">The viewer could not be loaded. Reload the page to try again.</p>;
  if (!chunk) return <Spinner label="Opening the viewer…" />;
  return <chunk.Workspace {...props} />;
}

function Gone({ status, error }: { status: number | undefined; error: unknown }) {
  if (status === 403) return <NotAllowed backTo="/view-images" reason="You may not see this image." />;
  return (
    <section className="placeholder-card" aria-labelledby="viewer-missing-title">
      <title>Image not found · MediShare</title>
      <h1 id="viewer-missing-title">{status === 404 ? 'Image not found' : 'The image could not be opened'}</h1>
      <p className="placeholder-card__note">
        {status === 404
          ? 'It does not exist, or it is not shared with you.'
          : getErrorMessage(error, 'Please try again in a moment.')}
      </p>
      <Link to="/view-images" className="btn btn--primary">
        Back to the images
      </Link>
    </section>
  );
}

function isWebImage(image: MedicalImage): boolean {
  return image.contentType === 'image/jpeg' || image.contentType === 'image/png';
}

function StudyWorkspace({ image, initialSeries }: { image: MedicalImage; initialSeries: string | null }) {
  const { data: series, isError, error } = useListStudySeriesQuery(image.id);
  const studyUid = image.study?.studyInstanceUid ?? '';
  const firstSeries = series ? (initialSeries ?? series[0]?.seriesInstanceUid ?? null) : null;
  useEffect(() => {
    if (!studyUid || !firstSeries) return;
    void askForSeries(studyUid, firstSeries);
    // Not taken (the page closed first): nothing keeps it.
    return () => forgetSeries(studyUid, firstSeries);
  }, [studyUid, firstSeries]);
  const source = useMemo<ViewerSource | null>(
    () => (series ? { kind: 'study', studyUid, series: series as StudySeries[], initialSeries } : null),
    [series, studyUid, initialSeries],
  );
  if (isError) return <Gone status={errorStatus(error)} error={error} />;
  if (!source) return <Spinner label="Loading the series…" />;
  return <LazyWorkspace source={source} title={captionOf(image)} />;
}

/** /viewer/:id: an image or study in the DICOM viewer; the server decides who may see it. */
export default function ViewerPage() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const { currentData: image, error, isError, isFetching } = useGetImageQuery(id ?? skipToken);
  // After the image has been asked for (effects run in order).
  useEffect(() => {
    loadWorkspace().catch(() => undefined);
  }, []);
  // The signed URL of a web image is read once: the viewer keeps the decoded pixels.
  const webUrl = image && isWebImage(image) ? image.image_url : null;
  const webSource = useMemo<ViewerSource | null>(() => (webUrl ? { kind: 'web', url: webUrl } : null), [webUrl]);

  if (!id) return <Gone status={404} error={null} />;
  if (!image && isFetching) return <Spinner label="Opening the image…" />;
  if (isError || !image) return <Gone status={errorStatus(error)} error={error} />;

  const caption = captionOf(image);
  let body;
  if (!image.image_url) {
    body = <p className="form-error">This image is not verified yet: enter the code from its share first.</p>;
  } else if (image.study) {
    body = <StudyWorkspace image={image} initialSeries={params.get('series')} />;
  } else if (webSource) {
    body = <LazyWorkspace source={webSource} title={caption} />;
  } else {
    body = <p className="form-error">This file opens in the images list, not in the viewer.</p>;
  }

  return (
    <div className="viewer-page">
      <title>{`${caption} · Viewer · MediShare`}</title>
      <div className="viewer-page__head">
        <h1 className="viewer-page__title">{caption}</h1>
        <Link className="btn btn--outline btn--small" to="/view-images">
          Back to the images
        </Link>
      </div>
      {body}
    </div>
  );
}
