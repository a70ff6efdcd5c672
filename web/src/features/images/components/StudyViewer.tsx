import { Link } from 'react-router';
import { Modal } from '@/components/Modal';
import { Spinner } from '@/components/Spinner';
import { formatDate } from '@/lib/format';
import type { MedicalImage, StudySeries } from '@/types/images';
import { useListStudySeriesQuery } from '../api';
import { captionOf, dicomDate, studyCounts } from '../media';
import { seriesTitle, useSeriesThumbnail } from '../series-thumbnail';
import { viewerHref } from '../viewer/urls';

function SeriesThumbnail({ studyUid, series, alt }: { studyUid: string; series: StudySeries; alt: string }) {
  const { src, failed } = useSeriesThumbnail(studyUid, series.seriesInstanceUid);
  return (
    <div className="study-series__thumb">
      {src ? <img src={src} alt={alt} /> : <p>{failed ? 'Preview not available.' : 'Loading preview…'}</p>}
    </div>
  );
}

/** A study opened from its card: its facts, then each series with a thumbnail, modality and instance count. */
export function StudyViewer({ image, onClose }: { image: MedicalImage; onClose: () => void }) {
  const { data, isFetching, isError, refetch } = useListStudySeriesQuery(image.id);
  const study = image.study;
  const caption = captionOf(image);
  const date = dicomDate(study?.date);
  const description = study
    ? [date ? formatDate(date) : null, study.modalities.join(', '), studyCounts(study.series, study.instances)]
        .filter(Boolean)
        .join(' · ')
    : undefined;

  return (
    <Modal title={caption} onClose={onClose} description={description} size="full">
      <p className="study-viewer__download">
        <Link className="btn btn--primary btn--small" to={viewerHref(image.id)}>
          Open in the viewer
        </Link>{' '}
        {image.archive_url && (
          <a className="btn btn--outline btn--small" href={image.archive_url} download>
            Download the study (ZIP)
          </a>
        )}
      </p>
      {isFetching && !data && <Spinner label="Loading the series…" />}
      {!isFetching && isError && (
        <div className="form-error" role="alert">
          <p>The series could not be loaded.</p>
          <button type="button" className="btn btn--outline btn--small" onClick={() => void refetch()}>
            Try again
          </button>
        </div>
      )}
      {data && study && (
        <ul className="study-viewer__series" aria-label={`Series of ${caption}`}>
          {data.map((series) => (
            <li key={series.seriesInstanceUid} className="study-series">
              <SeriesThumbnail studyUid={study.studyInstanceUid} series={series} alt={`Thumbnail: ${seriesTitle(series)}`} />
              <h3 className="study-series__title">{seriesTitle(series)}</h3>
              <p className="study-series__facts">
                {[series.modality, series.bodyPart, `${series.instances} ${series.instances === 1 ? 'instance' : 'instances'}`]
                  .filter(Boolean)
                  .join(' · ')}
              </p>
              <Link
                className="btn btn--outline btn--small"
                to={viewerHref(image.id, series.seriesInstanceUid)}
                aria-label={`Open in the viewer: ${seriesTitle(series)}`}
              >
                Open in the viewer
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
