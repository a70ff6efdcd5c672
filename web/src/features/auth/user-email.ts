// product.md §9: the registered email is kept in localStorage as 'userEmail'
// so that /verify-account can fill it in.
const KEY = 'userEmail';

export function readUserEmail(): string {
  try {
    return localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function storeUserEmail(email: string): void {
  try {
    localStorage.setItem(KEY, email);
  } catch {
    // Storage can be disabled; the person then types the email again.
  }
}
