import { skipToken } from '@reduxjs/toolkit/query/react';
import { useParams } from 'react-router';
import { Spinner } from '@/components/Spinner';
import { errorStatus, getErrorMessage } from '@/lib/api-client';
import { fullName } from '@/lib/format';
import { useGetUserQuery } from '@/lib/users-api';
import { useGetOwnProfileQuery } from '../api';
import { ProfileDetails, ProfileSummary } from '../components/ProfileDetails';
import '../profile.css';

/** /user-profile/:id (product.md §2): one user, read only; no id shows oneself. */
export function UserProfilePage() {
  const { id } = useParams();
  const other = useGetUserQuery(id ?? skipToken);
  const own = useGetOwnProfileQuery(undefined, { skip: Boolean(id) });
  // currentData: never the previous user's answer while another one loads.
  const { currentData: user, error, isError, isFetching } = id ? other : own;
  const loading = isFetching && !user;
  const notFound = errorStatus(error) === 404;

  return (
    <div className="profile-page">
      <title>{user ? `${fullName(user) || user.username} · MediShare` : 'User Profile · MediShare'}</title>
      <h1 className="page-title">User Profile</h1>
      {loading && <Spinner label="Loading the profile…" />}
      {!loading && isError && (
        <p className="form-error" role="alert">
          {notFound ? 'User not found.' : getErrorMessage(error, 'The profile could not be loaded. Please try again.')}
        </p>
      )}
      {!loading && !isError && user && (
        <>
          <ProfileSummary user={user} />
          <ProfileDetails user={user} />
        </>
      )}
    </div>
  );
}
