import { describe, expect, it } from 'vitest';
import { makeImage } from '@/test/fixtures';
import { discussLink } from './discuss';

const sara = { id: 'provider-2', firstname: 'Sara', lastname: 'Malik' };

describe('discussLink', () => {
  it("leads from an uploader's card to the image's patient, with the image", () => {
    const image = makeImage({ id: 'img-1' });
    expect(discussLink(image, 'uploaded', 'provider-1')).toBe('/messages?with=patient-1&image=img-1');
  });

  it('leads from a shared image to the person who shared it', () => {
    const image = makeImage({ id: 'img-2', isShared: true, sharedBy: sara });
    expect(discussLink(image, 'shared', 'patient-1')).toBe('/messages?with=provider-2&image=img-2');
  });

  it('leaves out an image the caller may not see yet (a share not verified)', () => {
    const image = makeImage({ id: 'img-3', isShared: true, isVerified: false, image_url: null, preview_url: null, sharedBy: sara });
    expect(discussLink(image, 'shared', 'patient-1')).toBe('/messages?with=provider-2');
  });

  it('offers nothing without another person', () => {
    expect(discussLink(makeImage({ patient: null }), 'uploaded', 'provider-1')).toBeNull();
    expect(discussLink(makeImage({ sharedBy: null }), 'shared', 'patient-1')).toBeNull();
    // A card of one's own (an admin who is also the patient, say).
    expect(discussLink(makeImage(), 'uploaded', 'patient-1')).toBeNull();
  });
});
