import { useState } from 'react';
import { Link } from 'react-router';
import { Modal } from '@/components/Modal';
import { Spinner } from '@/components/Spinner';
import { errorStatus } from '@/lib/api-client';
import { formatDateTime, fullName, orNA } from '@/lib/format';
import type { DicomFacts, MedicalImage } from '@/types/images';
import { useGetImageQuery, useLazyGetImageQuery } from '../api';
import { formatBytes } from '../file-rules';
import { captionOf, mediaOf, typeLabel } from '../media';
import { DocumentIcon, LockIcon } from './icons';
import { PdfDocument } from './PdfDocument';
import { SignedImage } from './SignedImage';

/** Signed URLs live 5 minutes; the open viewer renews its own a little earlier. */
const RENEW_MS = 4 * 60 * 1000;

interface ImageViewerProps {
  /** The image as the list gave it. */
  image: MedicalImage;
  onClose: () => void;
  /** Where "AI analysis" leads, for those who may run one; null for none. */
  analysisHref?: string | null;
}

function dimensions(dicom: DicomFacts): string {
  return dicom.rows && dicom.columns ? `${dicom.rows} × ${dicom.columns}` : 'N/A';
}

function DicomFactsList({ dicom }: { dicom: DicomFacts }) {
  const facts: [string, string][] = [
    ['Modality', orNA(dicom.modality)],
    ['Body part', orNA(dicom.bodyPart)],
    ['Study description', orNA(dicom.studyDescription)],
    ['Rows × Columns', dimensions(dicom)],
    ['Frames', dicom.frames ? String(dicom.frames) : 'N/A'],
  ];
  return (
    <section className="viewer__section" aria-labelledby="viewer-dicom-title">
      <h3 id="viewer-dicom-title" className="viewer__section-title">
        DICOM
      </h3>
      <dl className="viewer__facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Stage({ image, refreshContentUrl }: { image: MedicalImage; refreshContentUrl: () => Promise<string | null> }) {
  const media = mediaOf(image);
  const caption = captionOf(image);
  const unavailable = (
    <div className="viewer__placeholder">
      <DocumentIcon />
      <p>Preview not available.</p>
    </div>
  );
  switch (media.kind) {
    case 'locked':
      return (
        <div className="viewer__placeholder">
          <LockIcon />
          <p>Image not Verified</p>
        </div>
      );
    case 'pdf':
      return <PdfDocument key={image.id} url={image.image_url ?? ''} refreshUrl={refreshContentUrl} title={caption} />;
    case 'no-preview':
      return unavailable;
    case 'unsupported':
      return (
        <div className="viewer__placeholder">
          <DocumentIcon />
          <p>{`Unsupported file type: ${media.type}`}</p>
        </div>
      );
    case 'picture': {
      // JPEG and PNG: the original; DICOM: the server's rendering.
      const original = image.contentType === 'image/jpeg' || image.contentType === 'image/png';
      const src = original && image.image_url ? image.image_url : media.src;
      const pick = original
        ? (fresh: MedicalImage) => fresh.image_url
        : (fresh: MedicalImage) => fresh.preview_url;
      return (
        <figure className="viewer__figure">
          <SignedImage
            key={src}
            imageId={image.id}
            src={src}
            pick={pick}
            alt={original ? caption : `DICOM preview: ${caption}`}
            className="viewer__image"
            fallback={unavailable}
          />
          {!original && (
            <figcaption className="viewer__note">
              A rendering of the first frame by the server; download the DICOM file for the full study.
            </figcaption>
          )}
        </figure>
      );
    }
  }
}

/**
 * The viewer dialog: the picture large (JPEG/PNG original, DICOM preview with
 * its facts), a PDF drawn inline, and a Download link. Opening it fetches the
 * image again (GET /api/upload/image/{id}) for freshly signed URLs.
 */
export function ImageViewer({ image: listed, onClose, analysisHref }: ImageViewerProps) {
  // Polled for fresh URLs: signed URLs live 5 minutes.
  const { data: latest, fulfilledTimeStamp, error, isError } = useGetImageQuery(listed.id, {
    pollingInterval: RENEW_MS,
  });
  const [fetchImage] = useLazyGetImageQuery();
  const [openedAt] = useState(Date.now);
  // The first answer fetched since opening is what the viewer draws (a cached
  // one may hold expired URLs); later ones only back the Download link.
  const [firstFetched, setFirstFetched] = useState<MedicalImage | null>(null);
  if (latest && !firstFetched && (fulfilledTimeStamp ?? 0) >= openedAt) setFirstFetched(latest);

  async function refreshContentUrl(): Promise<string | null> {
    try {
      return (await fetchImage(listed.id).unwrap()).image_url;
    } catch {
      return null;
    }
  }

  const status = errorStatus(error);
  const gone = !firstFetched && (status === 404 || status === 403);
  // A failed fetch for another reason falls back to the list's copy.
  const shown = firstFetched ?? (isError && !gone ? listed : null);
  const newest = firstFetched ? (latest ?? firstFetched) : shown;
  const uploader = fullName(listed.uploadedBy);

  return (
    <Modal title={captionOf(listed)} onClose={onClose} size="full">
      <div className="viewer">
        <div className="viewer__stage">
          {gone && <p className="form-error">This image is no longer available.</p>}
          {!gone && !shown && <Spinner label="Opening the image…" />}
          {shown && <Stage image={shown} refreshContentUrl={refreshContentUrl} />}
        </div>
        <aside className="viewer__side" aria-label="Details">
          <dl className="viewer__facts">
            <div>
              <dt>Patient</dt>
              <dd>{fullName(listed.patient) || 'N/A'}</dd>
            </div>
            <div>
              <dt>Uploaded by</dt>
              <dd>{uploader || 'N/A'}</dd>
            </div>
            <div>
              <dt>Uploaded</dt>
              <dd>
                {listed.createdAt ? (
                  <time dateTime={listed.createdAt}>{formatDateTime(listed.createdAt)}</time>
                ) : (
                  'N/A'
                )}
              </dd>
            </div>
            <div>
              <dt>Type</dt>
              <dd>{typeLabel(listed)}</dd>
            </div>
            <div>
              <dt>File</dt>
              <dd className="viewer__file">
                {listed.fileName ?? 'N/A'}
                {listed.size !== null && ` (${formatBytes(listed.size)})`}
              </dd>
            </div>
          </dl>
          {listed.dicom && <DicomFactsList dicom={newest?.dicom ?? listed.dicom} />}
          {newest?.image_url && (
            <a className="btn btn--primary viewer__download" href={newest.image_url} download={listed.fileName || true}>
              Download
            </a>
          )}
          {analysisHref && (
            <Link className="btn btn--outline viewer__download" to={analysisHref}>
              AI analysis
            </Link>
          )}
        </aside>
      </div>
    </Modal>
  );
}
