import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useAppDispatch } from '@/app/hooks';
import { Spinner } from '@/components/Spinner';
import { getErrorMessage } from '@/lib/api-client';
import { clearUser } from '@/lib/session';
import { useGetOwnProfileQuery } from '../api';
import { DeleteAccountModal } from '../components/DeleteAccountModal';
import { EditProfileModal } from '../components/EditProfileModal';
import { ProfileDetails, ProfileSummary } from '../components/ProfileDetails';
import '../profile.css';

// Loaded with the profile's tokens part, so the first load stays within its budget.
const AccessTokensSection = lazy(() =>
  import('../components/AccessTokensSection').then((m) => ({ default: m.AccessTokensSection })),
);

type OpenModal = 'edit' | 'delete' | null;

/**
 * My Profile (product.md §2): GET /api/users/profile, edit and delete, and
 * the caller's personal access tokens. `extra` is what app/ adds below the
 * details (a patient's access history).
 */
export function ProfilePage({ extra }: { extra?: ReactNode }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  // A save replaces the cached profile (and the session's user) itself.
  const { data: user, error, isError, isFetching } = useGetOwnProfileQuery();
  const [modal, setModal] = useState<OpenModal>(null);

  async function onDeleted() {
    setModal(null);
    // Leave the guarded page before the session goes, or its guard would
    // send the (now signed-out) visitor to /login instead of home.
    await navigate('/', { replace: true, flushSync: true });
    dispatch(clearUser());
  }

  return (
    <div className="profile-page">
      <title>My Profile · MediShare</title>
      <h1 className="page-title">My Profile</h1>
      {isFetching && !user && <Spinner label="Loading your profile…" />}
      {isError && !user && (
        <p className="form-error" role="alert">
          {getErrorMessage(error, 'Your profile could not be loaded. Please try again.')}
        </p>
      )}
      {user && (
        <>
          <ProfileSummary user={user}>
            <button type="button" className="btn btn--primary" onClick={() => setModal('edit')}>
              Edit Profile
            </button>
            <button type="button" className="btn btn--danger-outline" onClick={() => setModal('delete')}>
              Delete Account
            </button>
          </ProfileSummary>
          <ProfileDetails user={user} />
          {extra}
          <Suspense fallback={<Spinner label="Loading access tokens…" />}>
            <AccessTokensSection />
          </Suspense>
          {modal === 'edit' && <EditProfileModal user={user} onClose={() => setModal(null)} onSaved={() => setModal(null)} />}
          {modal === 'delete' && (
            <DeleteAccountModal onClose={() => setModal(null)} onDeleted={() => void onDeleted()} />
          )}
        </>
      )}
    </div>
  );
}
