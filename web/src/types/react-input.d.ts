import 'react';

// Chromium, Firefox and Safari let a file input pick a whole folder with this
// attribute (the study upload uses it); React's types do not list it.
declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the type parameter must match React's declaration
  interface InputHTMLAttributes<T> {
    webkitdirectory?: string;
  }
}
