import { PagePlaceholder } from './PagePlaceholder';

/** Any path the router does not know. */
export function NotFound() {
  return (
    <PagePlaceholder
      title="Page not found"
      note="The page you asked for does not exist or has moved."
    />
  );
}
