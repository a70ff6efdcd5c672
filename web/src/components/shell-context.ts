import { createContext } from 'react';

/** True inside the signed-in app shell, which already provides the header and <main>. */
export const ShellContext = createContext(false);
