import { useState } from 'react';
import { useAppSelector } from '@/app/hooks';
import { selectUser } from '@/features/auth';
import type { MedicalImage } from '../api';
import { DeleteImageModal } from '../components/DeleteImageModal';
import { ImageSection } from '../components/ImageSection';
import { ImageViewer } from '../components/ImageViewer';
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
 * viewer; the uploader and admins may delete.
 */
export function ViewImagesPage() {
  const user = useAppSelector(selectUser);
  const role = user?.role ?? '';
  const isAdmin = role === 'admin';
  const [version, setVersion] = useState(0);
  const [viewing, setViewing] = useState<MedicalImage | null>(null);
  const [pending, setPending] = useState<PendingDelete | null>(null);

  const canDelete = (image: MedicalImage) =>
    role !== 'patient' && (isAdmin || (Boolean(user?.id) && image.uploadedBy?.id === user?.id));

  function onDelete(image: MedicalImage, context: { lastOnPage: boolean; goBack: () => void }) {
    setPending({ image, ...context });
  }

  function onDeleted() {
    if (pending?.lastOnPage) pending.goBack();
    setPending(null);
    setVersion((n) => n + 1);
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
          version={version}
          canDelete={canDelete}
          onOpen={setViewing}
          onDelete={onDelete}
        />
      )}
      <ImageSection
        title="Shared Images"
        url="/upload/shared-images"
        emptyText="No shared images found."
        version={version}
        canDelete={canDelete}
        onOpen={setViewing}
        onDelete={onDelete}
      />
      {viewing && <ImageViewer image={viewing} onClose={() => setViewing(null)} />}
      {pending && <DeleteImageModal image={pending.image} onClose={() => setPending(null)} onDeleted={onDeleted} />}
    </div>
  );
}
