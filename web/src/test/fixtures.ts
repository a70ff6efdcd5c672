import type { Permission } from '@/lib/access';
import type { Health } from '@/lib/health-api';
import { PROFILE_FIELDS } from '@/lib/profile-fields';
import type { User } from '@/types/api';
import type { MedicalImage } from '@/types/images';

/** What each role holds, as the migrations seed role_permissions. */
export const ROLE_PERMISSIONS: Record<string, Permission[]> = {
  patient: ['audit:read', 'images:view-shared', 'messages:send', 'users:list'],
  healthProvider: [
    'analysis:run',
    'audit:read',
    'images:delete',
    'images:share',
    'images:upload',
    'images:view-shared',
    'messages:send',
    'users:list',
  ],
  admin: [
    'analysis:run',
    'audit:read',
    'audit:read-all',
    'images:delete',
    'images:manage-all',
    'images:read-all',
    'images:share',
    'images:upload',
    'images:view-shared',
    'messages:send',
    'roles:read',
    'settings:manage',
    'system:monitor',
    'users:list',
    'users:manage',
  ],
};

/**
 * A complete user object as api.md describes it: the caller's own record,
 * with the permissions of its role unless others are given.
 */
export function makeUser(overrides: Partial<User> = {}): User {
  const role = overrides.role ?? 'patient';
  const unknown = Object.fromEntries(PROFILE_FIELDS.map((field) => [field.key, null]));
  return {
    ...unknown,
    id: '3f1c2b9e-8a47-4d2f-9c61-1b2a3c4d5e6f',
    firstname: 'Amina',
    lastname: 'Khan',
    email: 'amina.khan@example.test',
    username: 'aminak',
    role: 'patient',
    active: true,
    verified: true,
    phone: '+1 555-0101',
    dob: '1990-04-12',
    gender: 'Female',
    address: '1 Example Road',
    city: 'Springfield',
    state: 'Example State',
    country: 'Exampleland',
    zipcode: '00000',
    bio: 'Test user.',
    bloodgroup: 'O+',
    primphysician: 'Dr. Example',
    createdAt: '2025-01-01T00:00:00Z',
    permissions: [...(ROLE_PERMISSIONS[role] ?? [])],
    ...overrides,
  };
}

/** An image object as api.md describes it (a DICOM CT with a preview). */
export function makeImage(overrides: Partial<MedicalImage> = {}): MedicalImage {
  const id = overrides.id ?? '9b2f4c1e-0d3a-4e5f-8a6b-7c8d9e0f1a2b';
  return {
    id,
    caption: 'Chest CT',
    contentType: 'application/dicom',
    fileName: 'CT_small.dcm',
    size: 39_206,
    createdAt: '2025-05-12T09:30:00Z',
    image_url: `/api/upload/image/${id}/content?s=s1&exp=1&sig=c`,
    preview_url: `/api/upload/image/${id}/preview?s=s1&exp=1&sig=p`,
    isShared: false,
    isVerified: true,
    sharingRequestId: null,
    expiresAt: null,
    sharedBy: null,
    uploadedBy: { id: 'provider-1', firstname: 'Imran', lastname: 'Siddiqui' },
    patient: { id: 'patient-1', firstname: 'Ayesha', lastname: 'Khan' },
    dicom: { modality: 'CT', bodyPart: 'CHEST', studyDescription: 'e+1', rows: 128, columns: 128, frames: 1 },
    ...overrides,
  };
}

/** A paged answer: `{data, pagination}`. */
export function pageOf<T>(data: T[], currentPage = 1, totalPages = data.length ? 1 : 0, pageSize = 10) {
  return {
    data,
    pagination: {
      currentPage,
      pageSize,
      totalPages,
      totalItems: totalPages <= 1 ? data.length : totalPages * pageSize,
      hasPrevPage: currentPage > 1,
      hasNextPage: currentPage < totalPages,
    },
  };
}

/** `data` of GET /api/admin/health: everything up. */
export function makeHealth(overrides: Partial<Health> = {}): Health {
  return {
    version: 'dev',
    startedAt: '2026-11-24T10:00:00Z',
    database: { ok: true, latencyMs: 0.4 },
    storage: { ok: true, kind: 'filesystem' },
    mail: { ok: true, kind: 'log', queued: 0 },
    auditChain: { ok: true, checked: 12, checkedAt: '2026-11-26T10:00:00Z', firstBrokenId: null, problem: null },
    ...overrides,
  };
}

/** `data` of GET /api/settings: the defaults, the built-in analyser only. */
export function makeSettings() {
  return {
    shareLifetimeDefaultHours: 24,
    shareLifetimeMaxHours: 168,
    registrationOpen: true,
    providerApprovalRequired: false,
    analysisProvider: 'builtin',
    analysisSendUnscreened: false,
    maxInstanceMegabytes: 50,
    maxStudyMegabytes: 2048,
    mfaRequiredRoles: [] as string[],
    analysisProviders: ['builtin'],
  };
}
