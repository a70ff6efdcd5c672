import { expect, type APIRequestContext } from '@playwright/test';
import type { Credentials } from './demo';

/** A person signed in through the API: their access token and their id. */
export interface ApiSession {
  token: string;
  userId: string;
}

/** POST /api/auth/login; the journey's setup goes through the API, what it checks through the screens. */
export async function apiSignIn(request: APIRequestContext, { email, password }: Credentials): Promise<ApiSession> {
  const response = await request.post('/api/auth/login', { data: { email, password } });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { data: { token: string; user: { id: string } } };
  return { token: body.data.token, userId: body.data.user.id };
}

export function bearer(session: ApiSession): Record<string, string> {
  return { Authorization: `Bearer ${session.token}` };
}
