/**
 * The four samples of /share-image (product.md §2): drawings made for the
 * demo (public/demo/), never patient data. The expiry dates are static.
 */
export interface DemoImage {
  slug: string;
  caption: string;
  /** Path of the picture on this site. */
  src: string;
  alt: string;
  /** A fixed sample date (YYYY-MM-DD). */
  expiresOn: string;
}

export const DEMO_IMAGES: readonly DemoImage[] = [
  {
    slug: 'chest-xray',
    caption: 'Chest X-ray',
    src: '/demo/chest-xray.svg',
    alt: 'Sample drawing of a chest X-ray: spine, ribs and both lungs',
    expiresOn: '2030-03-31',
  },
  {
    slug: 'hand-xray',
    caption: 'Hand X-ray',
    src: '/demo/hand-xray.svg',
    alt: 'Sample drawing of a hand X-ray: finger bones and wrist',
    expiresOn: '2030-06-15',
  },
  {
    slug: 'brain-mri',
    caption: 'Brain MRI',
    src: '/demo/brain-mri.svg',
    alt: 'Sample drawing of an axial brain MRI slice',
    expiresOn: '2030-09-01',
  },
  {
    slug: 'knee-xray',
    caption: 'Knee X-ray',
    src: '/demo/knee-xray.svg',
    alt: 'Sample drawing of a knee X-ray: thigh bone, shin bone and kneecap',
    expiresOn: '2030-12-20',
  },
];

/** The address of a sample picture on this site. */
export function demoLink(image: DemoImage, origin: string = window.location.origin): string {
  return new URL(image.src, origin).href;
}

/** Share links: a social network, a microblog and mail. */
export function shareTargets(image: DemoImage, link: string) {
  const url = encodeURIComponent(link);
  const text = encodeURIComponent(`${image.caption} (MediShare sample)`);
  return {
    facebook: `https://www.facebook.com/sharer/sharer.php?u=${url}`,
    x: `https://twitter.com/intent/tweet?url=${url}&text=${text}`,
    mail: `mailto:?subject=${text}&body=${encodeURIComponent(`${image.caption} (MediShare sample): ${link}`)}`,
  };
}
