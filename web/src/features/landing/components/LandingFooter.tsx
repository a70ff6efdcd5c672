import { Link } from 'react-router';
import { Logo } from '@/components/Logo';

// Quick links of product.md §2 ("Landing /").
const QUICK_LINKS = [
  { to: '/view-images', label: 'View Images' },
  { to: '/share-image', label: 'Share Image' },
  { to: '/upload', label: 'Upload Image' },
  { to: '/messages', label: 'Messages' },
];

export function LandingFooter() {
  return (
    <footer className="landing-footer">
      <div className="container landing-footer__grid">
        <div className="landing-footer__brand">
          <Logo inverted />
          <p>Secure sharing of medical images between patients and health providers.</p>
        </div>

        <nav className="landing-footer__col" aria-labelledby="footer-links-title">
          <h2 id="footer-links-title">Quick links</h2>
          <ul>
            {QUICK_LINKS.map((link) => (
              <li key={link.to}>
                <Link to={link.to}>{link.label}</Link>
              </li>
            ))}
          </ul>
        </nav>

        <section className="landing-footer__col" aria-labelledby="footer-contact-title">
          <h2 id="footer-contact-title">Contact</h2>
          <address>
            <ul>
              <li>
                Email: <a href="mailto:support@medishare.example">support@medishare.example</a>
              </li>
              <li>Phone: +1 555-0100</li>
              <li>Support: 24 hours a day, 7 days a week</li>
            </ul>
          </address>
        </section>
      </div>
      <div className="landing-footer__bottom">
        <div className="container">
          <p>
            © {new Date().getFullYear()} MediShare. In a medical emergency, call your local
            emergency number.
          </p>
        </div>
      </div>
    </footer>
  );
}
