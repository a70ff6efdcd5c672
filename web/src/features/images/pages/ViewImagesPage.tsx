import { useState } from 'react';
import { useAppSelector } from '@/app/hooks';
import { ShareImageModal, VerifyImageModal, type ImageShare } from '@/features/sharing';
import { selectUser } from '@/lib/session';
import type { MedicalImage } from '../api';
import { DeleteImageModal } from '../components/DeleteImageModal';
import { ImageSection } from '../components/ImageSection';
import { ImageViewer } from '../components/ImageViewer';
import { captionOf } from '../media';
import '@/components/forms.css';
import '../images.css';

interface PendingDelete {
  image: MedicalImage;
  lastOnPage: boolean;
  goBack: () => void;
}

/**
 * /view-images (product.md §2): 'Uploaded Images' for providers (their own)
 * and admins (every image), 'Shared Images' for everyone; a card opens the
 * viewer; the uploader and admins may delete, share and revoke shares; the
 * recipient of a share verifies it with the emailed code.
 */
export function ViewImagesPage() {
  const user = useAppSelector(selectUser);
  const role = user?.role ?? '';
  const isAdmin = role === 'admin';
  const [version, setVersion] = useState(0);
  const [viewing, setViewing] = useState<MedicalImage | null>(null);
  const [pending, setPending] = useState<PendingDelete | null>(null);
  const [sharing, setSharing] = useState<MedicalImage | null>(null);
  const [verifying, setVerifying] = useState<MedicalImage | null>(null);

  // The uploader and admins; never patients (product.md §6).
  const isOwnerOrAdmin = (image: MedicalImage) =>
    role !== 'patient' && (isAdmin || (Boolean(user?.id) && image.uploadedBy?.id === user?.id));
  const canDelete = isOwnerOrAdmin;
  const canShare = isOwnerOrAdmin;
  // Only a share's sharer or an admin may revoke it (an admin may have shared a provider's image).
  const canRevoke = (share: ImageShare) => isAdmin || (Boolean(user?.id) && share.sharedBy?.id === user?.id);
  const reload = () => setVersion((n) => n + 1);

  function onDelete(image: MedicalImage, context: { lastOnPage: boolean; goBack: () => void }) {
    setPending({ image, ...context });
  }

  function onDeleted() {
    if (pending?.lastOnPage) pending.goBack();
    setPending(null);
    reload();
  }

  return (
    <div className="images-page">
      <title>View Medical Images · MediShare</title>
      <h1 className="page-title">View Medical Images</h1>
      {role !== 'patient' && (
        <ImageSection
          title="Uploaded Images"
          url={isAdmin ? '/upload/images' : '/upload/my-images'}
          emptyText="No uploaded images found."
          note={isAdmin ? 'Every image in MediShare, whoever uploaded it.' : undefined}
          variant="uploaded"
          version={version}
          canDelete={canDelete}
          canShare={canShare}
          canRevoke={canRevoke}
          onOpen={setViewing}
          onDelete={onDelete}
          onShare={setSharing}
          onVerify={setVerifying}
          onSharesChanged={reload}
        />
      )}
      <ImageSection
        title="Shared Images"
        url="/upload/shared-images"
        emptyText="No shared images found."
        variant="shared"
        version={version}
        canDelete={canDelete}
        canShare={() => false}
        onOpen={setViewing}
        onDelete={onDelete}
        onShare={setSharing}
        onVerify={setVerifying}
        onSharesChanged={reload}
      />
      {viewing && <ImageViewer image={viewing} onClose={() => setViewing(null)} />}
      {pending && <DeleteImageModal image={pending.image} onClose={() => setPending(null)} onDeleted={onDeleted} />}
      {sharing && (
        <ShareImageModal
          imageId={sharing.id}
          caption={captionOf(sharing)}
          shares={sharing.shares}
          currentUserId={user?.id}
          onClose={() => setSharing(null)}
          onShared={() => {
            setSharing(null);
            reload();
          }}
        />
      )}
      {verifying && (
        <VerifyImageModal
          sharingRequestId={verifying.sharingRequestId}
          onClose={() => setVerifying(null)}
          onVerified={() => {
            setVerifying(null);
            reload();
          }}
          onEnded={reload}
        />
      )}
    </div>
  );
}
