import { fileURLToPath } from 'node:url';

/**
 * The data folder of the server that ../scripts/e2e-server.sh starts
 * (MEDISHARE_DATA_DIR=<repo>/data/e2e). E2E_DATA_DIR points elsewhere, for a
 * server started by hand.
 */
export const e2eDataDir: string =
  process.env.E2E_DATA_DIR ?? fileURLToPath(new URL('../../../data/e2e/', import.meta.url));
