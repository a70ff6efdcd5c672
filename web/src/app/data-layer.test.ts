import MockAdapter from 'axios-mock-adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dashboardApi } from '@/features/dashboard/api';
import { imagesApi } from '@/features/images/api';
import { profileApi } from '@/features/profile/api';
import { sharingApi } from '@/features/sharing/api';
import { api } from '@/lib/api-client';
import { setUser } from '@/lib/session';
import { usersApi } from '@/lib/users-api';
import { makeImage, makeUser, pageOf } from '@/test/fixtures';
import { connectApiClient } from './connect-api-client';
import { makeStore, type AppStore } from './store';

// How the features' endpoints keep each other's caches fresh: a write
// refetches exactly the subscribed queries whose tags it invalidates.

let mock: MockAdapter;
let store: AppStore;
let disconnect: () => void;

const me = makeUser({ id: 'provider-1', role: 'healthProvider' });
const image = makeImage({ id: 'img-1' });

beforeEach(() => {
  mock = new MockAdapter(api);
  store = makeStore().store;
  disconnect = connectApiClient(store, vi.fn());
  store.dispatch(setUser({ user: me, token: 't' }));
  mock.onGet('/upload/my-images').reply(200, pageOf([image]));
  mock.onGet('/upload/shared-images').reply(200, pageOf([makeImage({ id: 'img-9', isShared: true })]));
  mock.onGet('/dashboard/stats').reply(200, { data: { totalImages: 1, sharedImages: 0, totalUsers: 2 } });
  mock.onGet('/users').reply(200, pageOf([me]));
  mock.onGet('/users/profile').reply(200, { data: me });
});

afterEach(() => {
  disconnect();
  mock.restore();
});

const calls = (url: string) => mock.history.get.filter((request) => request.url === url).length;

/** The screens' queries, subscribed as mounted screens would be. */
async function subscribeScreens() {
  await Promise.all([
    store.dispatch(imagesApi.endpoints.listImages.initiate({ list: 'my-images', page: 1 })),
    store.dispatch(imagesApi.endpoints.listImages.initiate({ list: 'shared-images', page: 1 })),
    store.dispatch(dashboardApi.endpoints.getDashboardStats.initiate()),
    store.dispatch(usersApi.endpoints.listUsers.initiate({ page: 1, limit: 5 })),
    store.dispatch(profileApi.endpoints.getOwnProfile.initiate()),
  ]);
}

/** How many times each screen query has asked the server, once the refetches settled. */
async function askedAgain() {
  await vi.waitFor(() => expect(Object.values(store.getState().api.queries).every((q) => q?.status !== 'pending')).toBe(true));
  return {
    uploaded: calls('/upload/my-images'),
    shared: calls('/upload/shared-images'),
    stats: calls('/dashboard/stats'),
    users: calls('/users'),
    profile: calls('/users/profile'),
  };
}

const ONCE = { uploaded: 1, shared: 1, stats: 1, users: 1, profile: 1 };

describe('cache tags', () => {
  it('an upload refreshes the uploaded list and the figures', async () => {
    await subscribeScreens();
    mock.onPost('/upload/image').reply(201, { message: 'Image uploaded successfully!', data: image });
    const file = new File(['x'], 'x.png', { type: 'image/png' });
    await store.dispatch(imagesApi.endpoints.uploadImage.initiate({ caption: 'c', patientId: 'p', file })).unwrap();
    expect(await askedAgain()).toEqual({ ...ONCE, uploaded: 2, stats: 2 });
  });

  it('a delete refreshes both image lists and the figures', async () => {
    await subscribeScreens();
    mock.onDelete('/upload/image/img-1').reply(200, { message: 'Image deleted successfully.' });
    await store.dispatch(imagesApi.endpoints.deleteImage.initiate('img-1')).unwrap();
    expect(await askedAgain()).toEqual({ ...ONCE, uploaded: 2, shared: 2, stats: 2 });
  });

  it('a share and a revoke refresh the page that shows the image, and the figures', async () => {
    await subscribeScreens();
    mock.onPost('/sharing/request').reply(201, { message: 'Image shared successfully.', data: { id: 's-1' } });
    mock.onDelete('/sharing/s-1').reply(200, { message: 'Share revoked.' });

    await store
      .dispatch(sharingApi.endpoints.shareImage.initiate({ imagemetadataId: 'img-1', createdfor: 'p', expiresInHours: 24 }))
      .unwrap();
    expect(await askedAgain()).toEqual({ ...ONCE, uploaded: 2, stats: 2 });

    await store.dispatch(sharingApi.endpoints.revokeShare.initiate({ id: 's-1', imageId: 'img-1' })).unwrap();
    expect(await askedAgain()).toEqual({ ...ONCE, uploaded: 3, stats: 3 });
  });

  it('a verification refreshes the shared list when it opens or ends a share, not after a wrong code', async () => {
    await subscribeScreens();
    const verify = () =>
      store
        .dispatch(sharingApi.endpoints.verifyShare.initiate({ sharingRequestId: 's-1', verificationCode: '123456' }))
        .unwrap()
        .catch(() => undefined);

    mock.onPost('/sharing/verify').replyOnce(400, { message: 'Invalid code. 4 attempts left.' });
    await verify();
    expect(await askedAgain()).toEqual(ONCE);

    mock.onPost('/sharing/verify').replyOnce(410, { message: 'This share has expired.' });
    await verify();
    expect(await askedAgain()).toEqual({ ...ONCE, shared: 2 });

    mock.onPost('/sharing/verify').replyOnce(200, { message: 'Image verified successfully.' });
    await verify();
    expect(await askedAgain()).toEqual({ ...ONCE, shared: 3 });
  });

  it('deleting a user refreshes the directory and the figures', async () => {
    await subscribeScreens();
    mock.onDelete('/users/u-2').reply(200, { message: 'User deleted.' });
    await store.dispatch(dashboardApi.endpoints.deleteUser.initiate('u-2')).unwrap();
    expect(await askedAgain()).toEqual({ ...ONCE, users: 2, stats: 2 });
  });

  it('a profile update replaces the cached profile and the session user, without asking again', async () => {
    await subscribeScreens();
    const saved = { ...me, city: 'Karachi' };
    mock.onPut('/users/profile').reply(200, { message: 'Profile updated successfully!', data: saved });
    const { firstname, lastname } = me;
    await store
      .dispatch(
        profileApi.endpoints.updateProfile.initiate({ firstname, lastname, city: 'Karachi' }),
      )
      .unwrap();

    expect(await askedAgain()).toEqual({ ...ONCE, users: 2 });
    expect(profileApi.endpoints.getOwnProfile.select()(store.getState()).data).toEqual(saved);
    expect(store.getState().session.user).toEqual(saved);
  });

  it('a failed write refreshes nothing', async () => {
    await subscribeScreens();
    mock.onDelete('/upload/image/img-1').reply(403, { message: 'You may not delete this image.' });
    await store.dispatch(imagesApi.endpoints.deleteImage.initiate('img-1')).unwrap().catch(() => undefined);
    expect(await askedAgain()).toEqual(ONCE);
  });
});
