import { AccessHistoryModal } from '@/features/audit/components/AccessHistory';
import { captionOf } from '@/features/images/media';
import { ViewImagesPage, type SharingSlots } from '@/features/images/pages/ViewImagesPage';
import { ShareImageModal } from '@/features/sharing/components/ShareImageModal';
import { ShareList } from '@/features/sharing/components/ShareList';
import { VerifyImageModal } from '@/features/sharing/components/VerifyImageModal';
import { can } from '@/lib/access';
import { selectUser } from '@/lib/session';
import type { ImageShare } from '@/types/images';
import { useAppSelector } from './hooks';

/**
 * /view-images: the images feature's page with the sharing feature's parts
 * and the audit feature's "Who has seen this" in its slots. The two features never import each other; they meet here.
 */
export function ViewImagesRoute() {
  const user = useAppSelector(selectUser);
  // A share's sharer may revoke it, and whoever manages every image (an admin may have shared a provider's image).
  const canRevoke = (share: ImageShare) =>
    can(user, 'images:manage-all') || (Boolean(user?.id) && share.sharedBy?.id === user?.id);

  // Only its sender extends a share.
  const canExtend = (share: ImageShare) => Boolean(user?.id) && share.sharedBy?.id === user?.id;

  const sharing: SharingSlots = {
    shares: (image) => (
      <ShareList imageId={image.id} shares={image.shares ?? []} canRevoke={canRevoke} canExtend={canExtend} />
    ),
    shareDialog: (image, close) => (
      <ShareImageModal
        imageId={image.id}
        caption={captionOf(image)}
        shares={image.shares}
        currentUserId={user?.id}
        onClose={close}
        onShared={close}
      />
    ),
    verifyDialog: (image, close) => (
      <VerifyImageModal sharingRequestId={image.sharingRequestId} onClose={close} onVerified={close} />
    ),
  };

  return (
    <ViewImagesPage
      sharing={sharing}
      historyDialog={(image, close) => <AccessHistoryModal imageId={image.id} caption={captionOf(image)} onClose={close} />}
    />
  );
}
