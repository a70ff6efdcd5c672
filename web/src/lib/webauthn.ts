import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';

// Passkeys through @simplewebauthn/browser, imported only when a passkey is
// used, so it stays out of the first load. The server (go-webauthn) answers
// `{publicKey: {...}}`; the helper wants the inner options.

/** What go-webauthn's CredentialCreation marshals to. */
export interface CreationOptions {
  publicKey: PublicKeyCredentialCreationOptionsJSON;
}

/** What go-webauthn's CredentialAssertion marshals to. */
export interface RequestOptions {
  publicKey: PublicKeyCredentialRequestOptionsJSON;
}

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

/** Asks the browser (and the person) for a new passkey. */
export async function createPasskey(options: CreationOptions): Promise<RegistrationResponseJSON> {
  const { startRegistration } = await import('@simplewebauthn/browser');
  return startRegistration({ optionsJSON: options.publicKey });
}

/** Asks the browser (and the person) to sign the server's challenge with a passkey. */
export async function signWithPasskey(options: RequestOptions): Promise<AuthenticationResponseJSON> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON: options.publicKey });
}

/**
 * The text for a passkey ceremony that did not finish in the browser: the
 * person closed the prompt or it timed out (NotAllowedError), or the browser
 * cannot use passkeys.
 */
export function passkeyFailureText(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : '';
  if (/not supported/i.test(message)) return 'This browser cannot use passkeys.';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey was not used. Please try again.';
  if (name === 'InvalidStateError') return 'This passkey is already registered.';
  return 'The passkey could not be used. Please try again.';
}
