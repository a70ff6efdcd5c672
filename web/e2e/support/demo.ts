import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { e2eDataDir } from './paths';

export type DemoRole = 'patient' | 'healthProvider' | 'admin';

export interface Credentials {
  email: string;
  password: string;
}

/** Written by the development server at start-up: {"patient": {email, password}, ...}. */
export const demoAccountsFile = path.join(e2eDataDir, 'demo-accounts.json');

/** The demo account of a role (waits up to 10 s for the server to write the file). */
export async function demoAccount(role: DemoRole): Promise<Credentials> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const accounts = JSON.parse(await readFile(demoAccountsFile, 'utf8')) as Partial<Record<DemoRole, Credentials>>;
      const account = accounts[role];
      if (!account?.email || !account.password) throw new Error(`${demoAccountsFile} has no ${role} account`);
      return account;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
