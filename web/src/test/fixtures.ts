import type { User } from '@/types/api';

/** A complete user object as api.md describes it. */
export function makeUser(overrides: Partial<User> = {}): User {
  return {
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
    taxid: null,
    licensenumber: null,
    insurancenumber: null,
    bloodgroup: 'O+',
    primphysician: 'Dr. Example',
    specialization: null,
    createdAt: '2025-01-01T00:00:00Z',
    ...overrides,
  };
}
