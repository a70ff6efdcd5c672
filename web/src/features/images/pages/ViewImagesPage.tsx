import { skipToken } from '@reduxjs/toolkit/query/react';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useAppSelector } from '@/app/hooks';
import { can, manages } from '@/lib/access';
import { getErrorMessage } from '@/lib/api-client';
import { notifyError } from '@/lib/notify';
import { selectUser } from '@/lib/session';
import type { MedicalImage } from '@/types/images';
import { useGetImageQuery } from '../api';
import { AssignPatientModal } from '../components/AssignPatientModal';
import { DeleteImageModal } from '../components/DeleteImageModal';
import { ImageSection } from '../components/ImageSection';
import { ImageViewer } from '../components/ImageViewer';
import { StudyViewer } from '../components/StudyViewer';
import { discussLink } from '../discuss';
import { inViewer, studyOf } from '../media';
import { viewerHref } from '../viewer/urls';
import '@/components/forms.css';
import '../images.css';

/**
 * What sharing adds to the page. The images feature knows nothing of sharing:
 * app/ composes the two by filling these slots.
 */
export interface SharingSlots {
  /** Who the image is shared with, on the cards of images the caller may share. */
  shares: (image: MedicalImage) => ReactNode;
  /** The Share dialog; `close` once it is done or cancelled. */
  shareDialog: (image: MedicalImage, close: () => void) => ReactNode;
  /** The Verify dialog of an image shared with the caller. */
  verifyDialog: (image: MedicalImage, close: () => void) => ReactNode;
}

/** "Who has seen this" for an image (the audit feature's, composed in app/). */
export type HistoryDialog = (image: MedicalImage, close: () => void) => ReactNode;

interface PendingDelete {
  image: MedicalImage;
  lastOnPage: boolean;
  goBack: () => void;
}

/** The DICOM viewer's page of an image it can show, or null. */
function viewerLink(image: MedicalImage): string | null {
  return inViewer(image) ? viewerHref(image.id) : null;
}

/**
 * /view-images (product.md §2): 'Uploaded Images' for providers (their own)
 * and admins (every image), 'Shared Images' for everyone; a card opens the
 * viewer; the uploader and admins may delete. With `sharing`, they may also
 * share and see the shares, and the recipient of a share verifies it, unless
 * they see image content without verification (admins). Each rule is the
 * server's, read from the permissions it states (lib/access.ts).
 */
export function ViewImagesPage({ sharing, historyDialog }: { sharing?: SharingSlots; historyDialog?: HistoryDialog }) {
  const user = useAppSelector(selectUser);
  // Every image, listed and opened without verification (images:read-all).
  const readsAll = can(user, 'images:read-all');
  const uploads = readsAll || can(user, 'images:upload');
  const [viewing, setViewing] = useState<MedicalImage | null>(null);
  const [pending, setPending] = useState<PendingDelete | null>(null);
  const [sharingImage, setSharingImage] = useState<MedicalImage | null>(null);
  const [verifying, setVerifying] = useState<MedicalImage | null>(null);
  const [history, setHistory] = useState<MedicalImage | null>(null);
  const [assigning, setAssigning] = useState<MedicalImage | null>(null);
  // `?image=<id>` opens that image in the viewer (the image card of a message links here).
  const [params, setParams] = useSearchParams();
  const linkedId = params.get('image');
  const linked = useGetImageQuery(linkedId ?? skipToken);
  const shown = viewing ?? (linkedId ? (linked.data ?? null) : null);

  const dropLinkedImage = useCallback(
    () =>
      setParams(
        (current) => {
          current.delete('image');
          return current;
        },
        { replace: true },
      ),
    [setParams],
  );

  function closeViewer() {
    setViewing(null);
    if (linkedId) dropLinkedImage();
  }

  // An image the caller may not see (any more): say so, as a failed call does.
  useEffect(() => {
    if (!linked.isError) return;
    notifyError(getErrorMessage(linked.error, 'This image is no longer available.'));
    dropLinkedImage();
  }, [linked.isError, linked.error, dropLinkedImage]);

  // The uploader (and admins: images:manage-all); never patients (product.md §6).
  const canDelete = (image: MedicalImage) => manages(user, image, 'images:delete');
  const canShare = (image: MedicalImage) => manages(user, image, 'images:share');
  // The image's patient, its uploader and readers of the whole log read its history (api.md "Audit log").
  const canSeeHistory = (image: MedicalImage) =>
    can(user, 'audit:read') &&
    (can(user, 'audit:read-all') ||
      (Boolean(user?.id) && (image.uploadedBy?.id === user?.id || image.patient?.id === user?.id)));
  // AI analysis: analysis:run, on pictures the caller may open (api.md "AI analysis").
  const analysisHref = (image: MedicalImage) =>
    can(user, 'analysis:run') && image.contentType !== 'application/pdf' && image.image_url !== null ? `/ai-analysis/${image.id}` : null;
  const onShare = sharing ? setSharingImage : undefined;
  // "The sender or an admin sees image content without verification" (product.md): no Verify for them.
  const onVerify = sharing && !readsAll ? setVerifying : undefined;

  function onDelete(image: MedicalImage, context: { lastOnPage: boolean; goBack: () => void }) {
    setPending({ image, ...context });
  }

  function onDeleted() {
    if (pending?.lastOnPage) pending.goBack();
    setPending(null);
  }

  return (
    <div className="images-page">
      <title>View Medical Images · MediShare</title>
      <h1 className="page-title">View Medical Images</h1>
      {uploads && (
        <ImageSection
          title="Uploaded Images"
          list={readsAll ? 'images' : 'my-images'}
          emptyText="No uploaded images found."
          note={readsAll ? 'Every image in MediShare, whoever uploaded it.' : undefined}
          variant="uploaded"
          canDelete={canDelete}
          canShare={canShare}
          onOpen={setViewing}
          onDelete={onDelete}
          onShare={onShare}
          onVerify={onVerify}
          renderShares={sharing?.shares}
          discussHref={(image) => discussLink(image, 'uploaded', user?.id)}
          onHistory={historyDialog ? setHistory : undefined}
          canSeeHistory={canSeeHistory}
          viewerHref={viewerLink}
          analysisHref={analysisHref}
          onAssign={setAssigning}
          canAssign={canShare}
        />
      )}
      <ImageSection
        title="Shared Images"
        list="shared-images"
        emptyText="No shared images found."
        variant="shared"
        canDelete={canDelete}
        canShare={() => false}
        onOpen={setViewing}
        onDelete={onDelete}
        onShare={onShare}
        onVerify={onVerify}
        discussHref={(image) => discussLink(image, 'shared', user?.id)}
        onHistory={historyDialog ? setHistory : undefined}
        canSeeHistory={canSeeHistory}
        viewerHref={viewerLink}
        analysisHref={analysisHref}
      />
      {shown && studyOf(shown) && <StudyViewer image={shown} onClose={closeViewer} />}
      {shown && !studyOf(shown) && <ImageViewer image={shown} onClose={closeViewer} analysisHref={analysisHref(shown)} />}
      {assigning && <AssignPatientModal image={assigning} onClose={() => setAssigning(null)} />}
      {pending && <DeleteImageModal image={pending.image} onClose={() => setPending(null)} onDeleted={onDeleted} />}
      {sharingImage && sharing?.shareDialog(sharingImage, () => setSharingImage(null))}
      {verifying && sharing?.verifyDialog(verifying, () => setVerifying(null))}
      {history && historyDialog?.(history, () => setHistory(null))}
    </div>
  );
}
