import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useAppDispatch, useAppSelector } from '@/app/hooks';
import { Spinner } from '@/components/Spinner';
import { getErrorMessage } from '@/lib/api-client';
import { needsMfaEnrolment } from '@/lib/access';
import { clearUser, selectUser } from '@/lib/session';
import { useGetOwnProfileQuery } from '../api';
import { DeleteAccountModal } from '../components/DeleteAccountModal';
import { EditProfileModal } from '../components/EditProfileModal';
import { ProfileDetails, ProfileSummary } from '../components/ProfileDetails';
import '../profile.css';

// Loaded with the profile's tokens part, so the first load stays within its budget.
const AccessTokensSection = lazy(() =>
  import('../components/AccessTokensSection').then((m) => ({ default: m.AccessTokensSection })),
);

// The second factors' part, with its QR code and passkey helpers, loads on its own too.
const SecuritySection = lazy(() => import('../components/SecuritySection').then((m) => ({ default: m.SecuritySection })));

type OpenModal = 'edit' | 'delete' | null;

/**
 * My Profile (product.md §2): GET /api/users/profile, edit and delete, and
 * the caller's second factors and personal access tokens. `extra` is what
 * app/ adds below the details (a patient's access history). An
 * enrolment-only session (its role requires a second factor it lacks) sees
 * only the Security section: the server answers nothing else until then.
 */
export function ProfilePage({ extra }: { extra?: ReactNode }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  // A save replaces the cached profile (and the session's user) itself.
  const enrolling = needsMfaEnrolment(useAppSelector(selectUser));
  const { data: user, error, isError, isFetching } = useGetOwnProfileQuery(enrolling ? skipToken : undefined);
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
      {enrolling && (
        <div className="form-error security-required" role="alert">
          <p>
            Your role requires a second factor. Set up an authenticator app or add a passkey below to continue using
            MediShare.
          </p>
        </div>
      )}
      {!enrolling && isFetching && !user && <Spinner label="Loading your profile…" />}
      {!enrolling && isError && !user && (
        <p className="form-error" role="alert">
          {getErrorMessage(error, 'Your profile could not be loaded. Please try again.')}
        </p>
      )}
      {!enrolling && user && (
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
        </>
      )}
      {/* Always in this place, so the recovery codes shown when enrolment ends stay on screen. */}
      <Suspense fallback={<Spinner label="Loading security settings…" />}>
        <SecuritySection />
      </Suspense>
      {!enrolling && user && (
        <>
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
