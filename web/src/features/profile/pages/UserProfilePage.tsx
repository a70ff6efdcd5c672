import { isAxiosError } from 'axios';
import { useParams } from 'react-router';
import { Spinner } from '@/components/Spinner';
import { getErrorMessage } from '@/lib/api-client';
import { fullName } from '@/lib/format';
import { useApiGet } from '@/lib/use-api-get';
import type { ApiResponse, User } from '@/types/api';
import { ProfileDetails, ProfileSummary } from '../components/ProfileDetails';
import '../profile.css';

/** /user-profile/:id (product.md §2): one user, read only; no id shows oneself. */
export function UserProfilePage() {
  const { id } = useParams();
  const url = id ? `/users/${encodeURIComponent(id)}` : '/users/profile';
  const { data, error, loading } = useApiGet<ApiResponse<User>>(url);
  const user = loading ? undefined : data?.data;
  const notFound = isAxiosError(error) && error.response?.status === 404;

  return (
    <div className="profile-page">
      <title>{user ? `${fullName(user) || user.username} · MediShare` : 'User Profile · MediShare'}</title>
      <h1 className="page-title">User Profile</h1>
      {loading && <Spinner label="Loading the profile…" />}
      {!loading && error !== undefined && (
        <p className="form-error" role="alert">
          {notFound ? 'User not found.' : getErrorMessage(error, 'The profile could not be loaded. Please try again.')}
        </p>
      )}
      {!loading && error === undefined && user && (
        <>
          <ProfileSummary user={user} />
          <ProfileDetails user={user} />
        </>
      )}
    </div>
  );
}
