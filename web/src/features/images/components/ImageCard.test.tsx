import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { formatDate, formatDateTime } from '@/lib/format';
import { makeImage } from '@/test/fixtures';
import { renderWithStore } from '@/test/render';
import type { MedicalImage } from '@/types/images';
import { ImageCard } from './ImageCard';

const SHARED_AT = '2025-05-12T09:30:00Z';
const EXPIRES_AT = '2025-05-13T09:30:00Z';

/**
 * An image shared with the caller, not verified yet: the server withholds
 * what it is about (nulls) and says when it was shared.
 */
function withheld(overrides: Partial<MedicalImage> = {}): MedicalImage {
  return makeImage({
    id: 'img-7',
    caption: null,
    contentType: 'image/jpeg',
    fileName: null,
    size: null,
    createdAt: null,
    sharedAt: SHARED_AT,
    image_url: null,
    preview_url: null,
    isShared: true,
    isVerified: false,
    sharingRequestId: 'share-7',
    expiresAt: EXPIRES_AT,
    sharedBy: { id: 'provider-2', firstname: 'Sara', lastname: 'Malik' },
    uploadedBy: null,
    patient: null,
    dicom: null,
    ...overrides,
  });
}

function renderCard(image: MedicalImage) {
  const onVerify = vi.fn();
  const onOpen = vi.fn();
  renderWithStore(
    <ul>
      <ImageCard
        image={image}
        variant="shared"
        canDelete={false}
        canShare={false}
        onOpen={onOpen}
        onDelete={vi.fn()}
        onVerify={onVerify}
      />
    </ul>,
  );
  return { card: screen.getByRole('article'), onVerify, onOpen };
}

describe('ImageCard of a share not verified yet', () => {
  it('shows what it may: locked media, Untitled, Patient N/A, the share date, the sharer, the expiry and the type', () => {
    const { card } = renderCard(withheld());
    expect(within(card).getByRole('heading', { level: 3, name: 'Untitled' })).toBeInTheDocument();
    expect(within(card).getByText('Image not Verified')).toBeInTheDocument();
    expect(card).toHaveTextContent('PatientN/A');
    expect(card).toHaveTextContent(`Date${formatDate(SHARED_AT)}`);
    expect(card.querySelector('dd time')).toHaveAttribute('datetime', SHARED_AT);
    expect(card).toHaveTextContent('Shared bySara Malik');
    expect(card).toHaveTextContent(`Expires${formatDateTime(EXPIRES_AT)}`);
    expect(within(card).getByText('JPEG')).toBeInTheDocument();
    expect(within(card).queryByRole('img')).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /^View/ })).not.toBeInTheDocument();
  });

  it('names the type from contentType alone when the DICOM facts are withheld', () => {
    const { card } = renderCard(withheld({ contentType: 'application/dicom' }));
    expect(within(card).getByText('DICOM')).toBeInTheDocument();
  });

  it("says 'N/A' for the date when neither date is known", () => {
    const { card } = renderCard(withheld({ sharedAt: null }));
    expect(card).toHaveTextContent('DateN/A');
  });

  it('offers Verify with the card’s sharing id', async () => {
    const user = userEvent.setup();
    const image = withheld();
    const { card, onVerify } = renderCard(image);
    await user.click(within(card).getByRole('button', { name: 'Verify Untitled' }));
    expect(onVerify).toHaveBeenCalledWith(image);
  });

  it('keeps the upload date once verified, even when sharedAt is sent too', () => {
    const { card } = renderCard(
      withheld({ isVerified: true, createdAt: '2025-04-01T08:00:00Z', caption: 'Knee', image_url: '/c', preview_url: '/p' }),
    );
    expect(card).toHaveTextContent(`Date${formatDate('2025-04-01T08:00:00Z')}`);
    expect(within(card).getByRole('button', { name: 'View Knee' })).toBeInTheDocument();
  });
});

/** A verified study: its caption is the study description unless the uploader typed another. */
function studyImage(overrides: Partial<MedicalImage> = {}): MedicalImage {
  return makeImage({
    id: 'study-1',
    caption: 'CT CHEST',
    study: {
      studyInstanceUid: '1.2.826.0.1.3680043.8.498.7',
      description: 'CT CHEST',
      date: '20250512',
      modalities: ['CT', 'PT'],
      series: 3,
      instances: 6,
      bytes: 17_052,
    },
    ...overrides,
  });
}

describe('ImageCard of a study', () => {
  it('shows the description, the study date, the modalities, the counts and the representative preview', () => {
    const { card } = renderCard(studyImage());
    expect(within(card).getByRole('heading', { level: 3, name: 'CT CHEST' })).toBeInTheDocument();
    expect(card).toHaveTextContent(`Study date${formatDate('2025-05-12')}`);
    expect(within(card).getByText('DICOM study · CT, PT')).toBeInTheDocument();
    expect(within(card).getByText('3 series · 6 instances')).toBeInTheDocument();
    expect(within(card).getByRole('img', { name: 'Preview: CT CHEST' })).toHaveAttribute('src', studyImage().preview_url);
  });

  it('says N/A for a study without a date', () => {
    const { card } = renderCard(
      studyImage({ study: { studyInstanceUid: '1.2', description: '', date: '', modalities: ['MR'], series: 1, instances: 2, bytes: 10 } }),
    );
    expect(card).toHaveTextContent('Study dateN/A');
    expect(within(card).getByText('1 series · 2 instances')).toBeInTheDocument();
  });

  it('opens the study with "Open study", instead of View', async () => {
    const user = userEvent.setup();
    const image = studyImage();
    const { card, onOpen } = renderCard(image);
    expect(within(card).queryByRole('button', { name: /^View/ })).not.toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Open study CT CHEST' }));
    expect(onOpen).toHaveBeenCalledWith(image);
  });
});

describe('ImageCard of a single DICOM upload', () => {
  it('shows it as the DICOM file it is, with View, although the server keeps it as a study of one instance', () => {
    const { card } = renderCard(
      studyImage({ study: { studyInstanceUid: '1.2', description: 'e+1', date: '20040119', modalities: ['CT'], series: 1, instances: 1, bytes: 39_206 } }),
    );
    expect(within(card).getByText('DICOM · CT')).toBeInTheDocument();
    expect(within(card).queryByText(/series ·/)).not.toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'View CT CHEST' })).toBeInTheDocument();
  });
});
