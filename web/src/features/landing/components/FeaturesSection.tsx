import type { ReactNode } from 'react';

interface Feature {
  title: string;
  text: string;
  icon: ReactNode;
}

const FEATURES: Feature[] = [
  {
    title: 'Encryption',
    text: 'Images and reports are encrypted in transit and at rest, and are only opened for the people they are shared with.',
    icon: (
      <>
        <rect x="5" y="11" width="14" height="10" rx="2" />
        <path d="M8 11V7.5a4 4 0 0 1 8 0V11" />
        <path d="M12 15v2.5" />
      </>
    ),
  },
  {
    title: 'Role-based access',
    text: 'Patients, health providers and administrators each see exactly what their role allows, and nothing more.',
    icon: (
      <>
        <circle cx="9" cy="8" r="3.5" />
        <path d="M2.5 20.5a6.5 6.5 0 0 1 13 0" />
        <path d="m16 11.5 2 2 4-4" />
      </>
    ),
  },
  {
    title: 'Audit trails',
    text: 'Every upload, share, verification and view is recorded, so you can always see who accessed what and when.',
    icon: (
      <>
        <rect x="5" y="4" width="14" height="17" rx="2" />
        <path d="M9 3h6v3H9z" />
        <path d="M9 11h6M9 14.5h6M9 18h3.5" />
      </>
    ),
  },
  {
    title: 'Secure messaging',
    text: 'Talk with your care team about results in a private conversation, right next to your images.',
    icon: (
      <>
        <path d="M4 5h16v11H9.5L4 20.5V5Z" />
        <path d="M8 9h8M8 12.5h5" />
      </>
    ),
  },
];

export function FeaturesSection() {
  return (
    <section id="features" className="features" aria-labelledby="features-title">
      <div className="container">
        <div className="section-heading">
          <h2 id="features-title">Built to protect every image you share</h2>
          <p>Security is not an add-on: it is how MediShare works from upload to diagnosis.</p>
        </div>
        <ul className="features__grid">
          {FEATURES.map((feature) => (
            <li key={feature.title} className="feature-card">
              <span className="feature-card__icon" aria-hidden="true">
                <svg
                  viewBox="0 0 24 24"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="1.8"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                  focusable="false"
                >
                  {feature.icon}
                </svg>
              </span>
              <h3 className="feature-card__title">{feature.title}</h3>
              <p className="feature-card__text">{feature.text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
