import './SkipLink.css';

/** First focusable element of every page: jumps past the header. */
export function SkipLink() {
  return (
    <a className="skip-link" href="#main-content">
      Skip to main content
    </a>
  );
}
