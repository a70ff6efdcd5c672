export function HeroSection() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="container hero__grid">
        <div className="hero__copy">
          <p className="hero__eyebrow">Private by design</p>
          <h1 id="hero-title" className="hero__title">
            Share medical images safely between patients and providers
          </h1>
          <p className="hero__text">
            Upload X-rays, scans, DICOM studies and reports to one protected place. Every file is
            encrypted, every share is confirmed with a verification code, and every access is
            recorded, so patients and health providers can trust what they see.
          </p>
          <a href="#features" className="btn btn--light btn--lg hero__cta">
            Explore the features
          </a>
        </div>
        <HeroVisual />
      </div>
    </section>
  );
}

/** Decorative mock of a shared study; hidden from assistive technology. */
function HeroVisual() {
  return (
    <div className="hero__visual" aria-hidden="true">
      <div className="share-card">
        <svg className="share-card__scan" viewBox="0 0 320 180" focusable="false">
          <defs>
            <radialGradient id="scan-glow" cx="50%" cy="45%" r="60%">
              <stop offset="0%" stopColor="#3b6d86" />
              <stop offset="100%" stopColor="#0b1d2a" />
            </radialGradient>
          </defs>
          <rect width="320" height="180" rx="10" fill="url(#scan-glow)" />
          <path d="M160 26v130" stroke="#a9cfe0" strokeWidth="5" strokeLinecap="round" opacity="0.7" />
          <path d="M150 48c-30 4-58 30-62 72-2 20 10 30 30 26 22-4 34-22 34-54V48Z" fill="#cfe6f1" opacity="0.35" />
          <path d="M170 48c30 4 58 30 62 72 2 20-10 30-30 26-22-4-34-22-34-54V48Z" fill="#cfe6f1" opacity="0.35" />
          <g stroke="#a9cfe0" strokeWidth="2.5" fill="none" opacity="0.55">
            <path d="M112 62c18-8 32-8 44-2" />
            <path d="M104 80c22-8 40-8 52-2" />
            <path d="M100 98c24-8 44-8 56-2" />
            <path d="M208 62c-18-8-32-8-44-2" />
            <path d="M216 80c-22-8-40-8-52-2" />
            <path d="M220 98c-24-8-44-8-56-2" />
          </g>
          <g className="share-card__lock">
            <rect x="262" y="16" width="42" height="42" rx="10" fill="#ffffff" />
            <rect x="273" y="35" width="20" height="15" rx="3" fill="#0e7490" />
            <path d="M277 35v-4a6 6 0 0 1 12 0v4" stroke="#0e7490" strokeWidth="3" fill="none" />
          </g>
        </svg>
        <div className="share-card__body">
          <div className="share-card__title-row">
            <span className="share-card__file">chest-ct-series.dcm</span>
            <span className="share-card__badge">Encrypted</span>
          </div>
          <ul className="share-card__steps">
            <li>Uploaded by your provider</li>
            <li>Shared with you for 24 hours</li>
            <li>Verified with your code</li>
          </ul>
        </div>
      </div>
    </div>
  );
}
