import { toast, type ToastOptions } from 'react-toastify/unstyled';

/**
 * The app's toasts (product.md §8). Always this module: the main
 * 'react-toastify' entry injects a <style> element, which the server's CSP
 * blocks, and it keeps a separate toast queue from the unstyled container.
 */
export function notifySuccess(message: string, options?: ToastOptions): void {
  toast.success(message, options);
}

/** An error toast; the same text is never stacked twice. */
export function notifyError(message: string, options?: ToastOptions): void {
  toast.error(message, { toastId: `error:${message}`, ...options });
}

/** One error toast per text (field errors of product.md §8). */
export function notifyErrors(messages: string[]): void {
  messages.forEach((message) => notifyError(message));
}

/** A neutral notice, such as a cancelled action. */
export function notifyInfo(message: string, options?: ToastOptions): void {
  toast.info(message, options);
}
