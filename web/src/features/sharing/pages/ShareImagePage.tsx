import { useId } from 'react';
import { Link } from 'react-router';
import { SimpleLayout } from '@/components/SimpleLayout';
import { formatDate } from '@/lib/format';
import { notifyError } from '@/lib/notify';
import { DEMO_IMAGES, demoLink, shareTargets, type DemoImage } from '../demo-images';
import '../share-demo.css';

async function copyLink(link: string) {
  try {
    await navigator.clipboard.writeText(link);
  } catch (error) {
    console.error('Copy to clipboard failed', error);
    notifyError(`The link could not be copied. The address is ${link}`);
    return;
  }
  window.alert('Link copied to clipboard!');
}

function DemoCard({ image }: { image: DemoImage }) {
  const titleId = useId();
  const link = demoLink(image);
  const targets = shareTargets(image, link);
  return (
    <li className="demo-card">
      <article className="demo-card__inner" aria-labelledby={titleId}>
        <img className="demo-card__image" src={image.src} alt={image.alt} width={400} height={300} />
        <div className="demo-card__body">
          <h2 id={titleId} className="demo-card__title">
            {image.caption}
          </h2>
          <p className="demo-card__expiry">
            Sample expiry: <time dateTime={image.expiresOn}>{formatDate(image.expiresOn)}</time>
          </p>
        </div>
        <div className="demo-card__actions">
          <button
            type="button"
            className="btn btn--primary btn--small"
            aria-label={`Copy link to ${image.caption}`}
            onClick={() => void copyLink(link)}
          >
            Copy link
          </button>
          <a
            className="btn btn--outline btn--small"
            href={targets.facebook}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Share ${image.caption} on Facebook (opens in a new tab)`}
          >
            Facebook
          </a>
          <a
            className="btn btn--outline btn--small"
            href={targets.x}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Share ${image.caption} on X (Twitter) (opens in a new tab)`}
          >
            X (Twitter)
          </a>
          <a className="btn btn--outline btn--small" href={targets.mail} aria-label={`Share ${image.caption} by email`}>
            Email
          </a>
        </div>
      </article>
    </li>
  );
}

/**
 * /share-image (product.md §2 'Share Your Image'): a static, public demo of
 * sharing with four sample drawings; nothing is sent to the server.
 */
export function ShareImagePage() {
  return (
    <SimpleLayout>
      <title>Share Your Image · MediShare</title>
      <section className="share-demo" aria-labelledby="page-title">
        <h1 id="page-title" className="share-demo__title">
          Share Your Image
        </h1>
        <p className="share-demo__intro">
          A demo of sharing: copy a link or send it through a social network, a microblog or email.
        </p>
        <p className="form-note share-demo__samples">
          These are samples drawn for this demo, not patient data, and their expiry dates are fixed. Real medical
          images are shared from View Images after signing in: the recipient gets a code by email and sees the image
          only after entering it.
        </p>
        <ul className="demo-grid" aria-label="Sample images">
          {DEMO_IMAGES.map((image) => (
            <DemoCard key={image.slug} image={image} />
          ))}
        </ul>
        <div className="share-demo__links">
          <Link to="/" className="btn btn--primary">
            Back to home
          </Link>
          <Link to="/view-images" className="btn btn--outline">
            Go to View Images
          </Link>
        </div>
      </section>
    </SimpleLayout>
  );
}
