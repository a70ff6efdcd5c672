import { describe, expect, it } from 'vitest';
import { emptyProfile, fieldsFor, profileErrors, profilePayload, profileValuesOf } from './profile-fields';

const keys = (role: string) => fieldsFor(role).map((field) => field.key);

describe('profile fields', () => {
  it('gives each role its own fields and the common ones (product.md §5)', () => {
    const common = ['firstname', 'lastname', 'phone', 'dob', 'gender', 'address', 'country', 'city', 'state', 'zipcode', 'bio'];
    expect(keys('admin')).toEqual(common);
    expect(keys('patient').filter((key) => !common.includes(key))).toEqual(['bloodgroup', 'primphysician']);
    expect(keys('healthProvider').filter((key) => !common.includes(key))).toEqual([
      'licensenumber',
      'insurancenumber',
      'taxid',
      'specialization',
    ]);
    expect(fieldsFor('patient', 'medical').map((field) => field.key)).toEqual(['bloodgroup', 'primphysician', 'bio']);
  });

  it("sends the role's fields only, trimmed, with an empty date or gender as null", () => {
    const values = { ...emptyProfile(), firstname: ' Sara ', lastname: 'Ahmed', licensenumber: 'LIC-1', bloodgroup: 'O+' };
    expect(profilePayload(values, 'patient')).toEqual({
      firstname: 'Sara',
      lastname: 'Ahmed',
      phone: '',
      dob: null,
      gender: null,
      address: '',
      country: '',
      city: '',
      state: '',
      zipcode: '',
      bloodgroup: 'O+',
      primphysician: '',
      bio: '',
    });
    expect(profilePayload(values, 'healthProvider')).not.toHaveProperty('bloodgroup');
    expect(profilePayload(values, 'admin')).not.toHaveProperty('licensenumber');
  });

  it('reads a user into form values, unknown as empty', () => {
    expect(profileValuesOf({ firstname: 'Sara', lastname: 'Ahmed', phone: null })).toEqual({
      ...emptyProfile(),
      firstname: 'Sara',
      lastname: 'Ahmed',
    });
  });

  it("checks the names and the server's limits, for the role's fields only", () => {
    const values = { ...emptyProfile(), firstname: ' ', lastname: 'Ahmed', zipcode: '9'.repeat(21), taxid: 'x'.repeat(51) };
    expect(profileErrors(values, 'patient')).toEqual({
      firstname: 'Please enter your first name.',
      zipcode: 'Zip code must be at most 20 characters.',
    });
    expect(profileErrors(values, 'healthProvider')).toHaveProperty('taxid', 'Tax ID must be at most 50 characters.');
    expect(profileErrors({ ...emptyProfile(), firstname: 'A', lastname: 'B' }, 'admin')).toEqual({});
  });
});
